// What a checked data file asks of the use cases (the requests, the times, the steps), shared by the
// loading (data-load.ts) and the check (data-file.ts), which first tries each payment and plan on the
// domain's pure state machines: what the lifecycle refuses there (a refund above what was captured,
// a billing of a completed plan) is a finding at the field that asked for it, before anything is
// written. Pure: the same domain functions the use cases call, without a store.
import type { ContractTables } from '../contract/contract.js';
import { scheduledCharge } from '../domain/clock.js';
import type { DomainContext } from '../domain/context.js';
import { EXPIRED_BEFORE_NOW_MS, EXPIRED_WAIT_MS, endState, type Step, takeStep } from '../domain/payment-paths.js';
import { createPayment, type Decision, newPaymentOf } from '../domain/payments.js';
import { type ChargeDecision, chargePlan, planFromInitialPayment, startBilledBy } from '../domain/plans.js';
import type { Schemas, Scope } from '../domain/types.js';
import type { CheckedPayment, CheckedPlan, DataCustomer, DataPlan } from './data-file.js';
import { initialPaymentRequest, nextBilling, type PlanCustomer } from './seeding.js';

/** A fault of the file: the pointer of its field, and what is wrong. */
export interface Finding {
  at: string;
  message: string;
}

/** When a payment is made and taken along its path; an EXPIRED one waits an hour, its expirationTime a minute past. */
export function paymentTimes(payment: Pick<CheckedPayment, 'given'>, now: Date) {
  if (payment.given.state !== 'EXPIRED') return { createdAt: now, stepsAt: now, expirationTime: undefined };
  return {
    createdAt: new Date(now.getTime() - EXPIRED_WAIT_MS),
    stepsAt: now,
    expirationTime: new Date(now.getTime() - EXPIRED_BEFORE_NOW_MS).toISOString(),
  };
}

/** A customer's details as a payment's `customerInfo` carries them. */
export function customerInfoOf(customer: DataCustomer): Schemas['CustomerInfo'] {
  const { id: _, cards: __, billingAddress: ___, metadata: ____, ...info } = customer;
  return info;
}

/** The request a file's payment is created with; `card` as a request sends it (a saved card by its pseudo number). */
export function paymentRequest(
  payment: CheckedPayment,
  transId: string,
  card: { pseudoNumber: string } | undefined,
  expirationTime: string | undefined,
): Schemas['PaymentRequest'] {
  const { given, customer } = payment;
  return {
    transId,
    amount: { value: given.amount.value, currency: given.amount.currency },
    captureMethod: { type: 'MANUAL' },
    paymentMethods: {
      integrationType: 'DIRECT',
      type: payment.method as Schemas['PaymentIntentMethodType'],
      ...(card ? { card } : {}),
    },
    // Paying with a saved card is a later credential-on-file payment the customer makes.
    ...(card
      ? { credentialOnFile: { type: 'UNSCHEDULED', initialPayment: false, unscheduled: { subType: 'CIT' } } }
      : {}),
    ...(customer
      ? { customerInfo: customerInfoOf(customer.given), billingAddress: customer.given.billingAddress }
      : {}),
    ...(given.state === 'DECLINED' ? { simulationMode: given.declinedWith ?? 'DECLINED' } : {}),
    ...(expirationTime ? { expirationTime } : {}),
    ...(given.metadata ? { metadata: given.metadata } : {}),
  } as Schemas['PaymentRequest'];
}

/** What a plan's initial payment carries of its customer and card (`card` as the request sends it). */
export function planCustomer(plan: CheckedPlan, card: PlanCustomer['card']): PlanCustomer {
  const { given, customer } = plan;
  const frequency = given.frequency ?? 'MONTHLY';
  return {
    customerInfo: customerInfoOf(customer.given),
    billingAddress: customer.given.billingAddress,
    card,
    schedule: {
      recurring: given.type === 'RECURRING' ? { frequency } : undefined,
      installments:
        given.type === 'INSTALLMENTS' ? { totalInstallments: given.totalInstallments, frequency } : undefined,
    },
  };
}

/** A plan's initial transId, where the file decides it (a plan with neither id nor transId gets its new id's). */
export const initialTransId = (plan: DataPlan): string | undefined =>
  plan.transId ?? (plan.id === undefined ? undefined : `${plan.id}-INITIAL`);

/** When a plan's initial payment was made: `billed` periods back, so that the clock billed that many since. */
export const planStart = (plan: DataPlan, now: Date): Date =>
  startBilledBy(plan.billed ?? 0, plan.frequency ?? 'MONTHLY', now);

const SCOPE: Scope = { merchantId: 'data-file', environment: 'test' };

/** The pure state machines' context at `now`, with ids of no consequence. */
function trial(tables: ContractTables, now: Date): DomainContext {
  let n = 0;
  return { ...tables, now, newId: (kind) => `${kind}-${++n}` };
}

/** The field a refusal at `step` is about (undefined: the creation). */
function fieldOf(payment: CheckedPayment, step: Step | undefined): string {
  if (step?.kind === 'capture' || step?.kind === 'refund') return `${payment.at}/${step.from}`;
  if (payment.given.state === 'DECLINED' && payment.given.declinedWith !== undefined)
    return `${payment.at}/declinedWith`;
  return `${payment.at}/state`;
}

/** What a step asked, for a message. */
function asked(step: Step | undefined, payment: CheckedPayment): string {
  const { currency, value } = payment.given.amount;
  if (!step) return `a payment of ${value} ${currency}`;
  if (step.kind === 'capture' || step.kind === 'refund')
    return `a ${step.kind} of ${step.value} of ${value} ${currency}`;
  return `its ${step.kind}`;
}

/** A file's payment tried along its path: a refusal, or an end in another state, at the field that asked for it. */
export function tryPayment(
  payment: CheckedPayment,
  context: { tables: ContractTables; now: Date },
): Finding | undefined {
  const times = paymentTimes(payment, context.now);
  const card = payment.card ? { pseudoNumber: 'pn_data_file' } : undefined;
  const request = paymentRequest(payment, payment.given.transId ?? 'data-file', card, times.expirationTime);
  const input = newPaymentOf(SCOPE, request, { integrationType: 'DIRECT', paymentMethodType: payment.method });
  const wanted = endState(payment.given.state);
  let decision: Decision | undefined;
  for (const step of [undefined, ...payment.steps]) {
    decision = step
      ? takeStep(step, decision!.payment, trial(context.tables, times.stepsAt))
      : createPayment(input, trial(context.tables, times.createdAt));
    // A payment that must fail fails on its way; any other refusal is the file's.
    const failedOnPurpose = wanted === 'FAILED' && decision.payment.state === 'FAILED';
    if (decision.outcome === 'failed' && !failedOnPurpose)
      return {
        at: fieldOf(payment, step),
        message: `${decision.reported.responseDescription} (${asked(step, payment)})`,
      };
  }
  if (decision!.payment.state === wanted) return undefined;
  return {
    at: fieldOf(payment, payment.steps.at(-1)),
    message: `leaves the payment ${decision!.payment.state}, not ${payment.given.state}`,
  };
}

/** A file's plan tried: its initial payment, the plan that makes, and each billing since; a refusal at its field. */
export function tryPlan(plan: CheckedPlan, context: { tables: ContractTables; now: Date }): Finding | undefined {
  const ctx = trial(context.tables, planStart(plan.given, context.now));
  const request = initialPaymentRequest(plan.given.type, planCustomer(plan, { cardNumber: plan.card.given.number }), {
    transId: initialTransId(plan.given) ?? 'data-file-INITIAL',
    amount: plan.given.amount,
  });
  const initial = createPayment(
    newPaymentOf(SCOPE, request, { integrationType: 'DIRECT', paymentMethodType: 'CARD' }),
    ctx,
  );
  let made =
    initial.outcome === 'ok'
      ? planFromInitialPayment({ payment: initial.payment, credentialOnFile: request.credentialOnFile! }, ctx)
      : undefined;
  if (!made)
    return {
      at: `${plan.at}/amount`,
      message: `its initial payment was refused (${initial.reported.responseDescription})`,
    };
  for (let i = 1; i <= (plan.given.billed ?? 0); i++) {
    const at = nextBilling(made, context.now);
    const charge: ChargeDecision = chargePlan(made, scheduledCharge(made, at.toISOString()), initial.payment, {
      ...ctx,
      now: at,
    });
    if (charge.outcome !== 'ok') {
      const reason =
        charge.outcome === 'invalid' ? charge.message : context.tables.codes[charge.code].responseDescription;
      return {
        at: `${plan.at}/billed`,
        message: `billing ${i} is refused: ${reason} (the plan is ${made.status} after ${i - 1})`,
      };
    }
    made = charge.plan;
  }
  return undefined;
}
