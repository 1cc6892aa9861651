// The contract's examples as a merchant's data: the objects the examples name, under the examples'
// own ids, so that every code sample of the documentation runs verbatim against the sandbox.
// `npm run sandbox` gives them to its demo merchant on a fresh database, the admin API (and
// `npm run sandbox -- seed`) to any merchant, and a reset brings them back to the scopes that had them.
//
// Each object is made as requests would make it: through the use cases and the domain's state
// machines, whose new ids are the examples' where an example names the object (the domain asks its
// context for every new id). The ids come from the contract bundle (contract/examples.ts), never
// from a copy here:
//   - the payment GET shows (getPaymentByPayId's example), its operations replayed in order;
//   - the payment each payment operation's path names, in the state the operation needs
//     (AUTHORIZED to capture, reverse or authorize more; PENDING_CONFIRMATION to confirm; captured
//     to refund); two operations that need one payment in two states are the contract's error;
//   - the customer GET shows, with its stored card and the plan GET shows: an initial
//     credential-on-file payment a month ago, and the plan's later payments as the clock bills them;
//   - the plan the charge names (a plan the merchant triggers, of the same customer and card);
//   - the payment intent the confirmation names, the payment link the creation answers with, and
//     the pseudo numbers of the tokenization examples.
// Nothing is notified: the examples' webhook URLs are not the merchant's.
import type { ContractTables } from '../contract/contract.js';
import type { ContractExamples } from '../contract/examples.js';
import { scheduledCharge } from '../domain/clock.js';
import type { DomainContext, IdKind } from '../domain/context.js';
import { completeOnHostedPage, type Decision, MULTI_STEP_METHODS, refundable } from '../domain/payments.js';
import { CARD_RANGES, passesLuhn } from '../domain/services.js';
import type { Environment, Merchant, Payment, PaymentPlan, Schemas, Scope } from '../domain/types.js';
import { DuplicateKeyError, type Store, type StoreTransaction } from '../store/store.js';
import { appContextAt } from './context.js';
import { type DestinationContext, destinationPolicy } from './destinations.js';
import { createPaymentIntent, createPaymentLink } from './flows.js';
import { isRejection, notFound, type Rejection } from './outcomes.js';
import { createPayment, methodTypeOf, paymentChanges, settle } from './payments.js';
import { chargePlan } from './plans.js';
import { createPseudoNumber } from './services.js';

/** What the seeding reads and computes with, besides the store. */
export interface ExampleDeps {
  examples: ContractExamples;
  tables: ContractTables;
  fingerprint(text: string): string;
}

/** One object the examples gave the scope. */
export interface ExampleObject {
  kind: 'payment' | 'paymentPlan' | 'customer' | 'paymentMethod' | 'pseudoNumber' | 'paymentIntent' | 'paymentLink';
  id: string;
  /** A payment's state; a plan's, an intent's or a link's status. */
  state?: string;
  /** A payment's transId. */
  transId?: string;
}

/** The scope holds data an example collides with (a taken transId or id): nothing was made. */
export class ExampleConflict extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExampleConflict';
  }
}

const DAY_MS = 24 * 3_600_000;

/** An example's amount, its missing parts from `fallback`. */
const money = (
  amount: { value?: number; currency?: string } | undefined,
  fallback: { value: number; currency: string },
) => ({
  value: amount?.value ?? fallback.value,
  currency: amount?.currency ?? fallback.currency,
});

/** What each operation on a payment needs the payment its path names to be. */
type Need = 'AUTHORIZED' | 'PENDING_CONFIRMATION' | 'CAPTURED' | 'ANY';
const PAYMENT_NEEDS = [
  ['refundPayment', 'CAPTURED'],
  ['capturePayment', 'AUTHORIZED'],
  ['reversePayment', 'AUTHORIZED'],
  ['incrementAuthorization', 'AUTHORIZED'],
  ['confirmPayment', 'PENDING_CONFIRMATION'],
  ['updatePayment', 'ANY'],
  ['getPaymentByPayId', 'ANY'],
] as const satisfies ReadonlyArray<readonly [string, Need]>;

/** What an operation's request example may say about the payment it acts on. */
interface OperationExample {
  transId?: string;
  refNr?: string;
  amount?: { value: number; currency: string };
  order?: { merchantReference?: string };
  paymentMethods?: object;
}

const satisfies = (payment: Payment, need: Need, request: OperationExample) =>
  need === 'ANY' ||
  (need === 'CAPTURED' ? refundable(payment) >= (request.amount?.value ?? 1) : payment.state === need);

/** Why a use case refused, in a sentence. */
function why(rejection: Rejection): string {
  if (rejection.rejected === 'invalid') return `${rejection.field} ${rejection.message}`;
  if (rejection.rejected === 'notFound') return `no ${rejection.what.toLowerCase()} ${rejection.id}`;
  return rejection.result.responseDescription ?? 'refused';
}

/** A card number of the summary's brand ending in its last four digits (Luhn-valid; a test card, never a real one). */
function cardNumberFor(card: Schemas['CardSummary']): string {
  const last4 = card.last4Digits;
  if (last4 === undefined) throw new Error("the contract's stored card example has no last4Digits");
  const range = CARD_RANGES.find((r) => r.brand === card.brand) ?? CARD_RANGES[0]!;
  const body = range.prefix.padEnd((range.brand === 'AMEX' ? 15 : 16) - 5, '0');
  const number = [...'0123456789'].map((d) => `${body}${d}${last4}`).find(passesLuhn);
  if (number === undefined) throw new Error(`no Luhn-valid card ends in ${last4}`);
  return number;
}

/** The credential on file whose initial payment makes a plan of this type. */
function credentialOnFileFor(plan: Pick<Schemas['PaymentPlan'], 'paymentPlanType' | 'recurring' | 'installments'>) {
  switch (plan.paymentPlanType) {
    case 'RECURRING':
      return {
        type: 'RECURRING',
        initialPayment: true,
        recurring: { frequency: plan.recurring?.frequency ?? 'MONTHLY' },
      } as Schemas['CredentialOnFile'];
    case 'INSTALLMENTS':
      return {
        type: 'INSTALLMENTS',
        initialPayment: true,
        installments: { total: plan.installments?.totalInstallments, frequency: plan.installments?.frequency },
      } as Schemas['CredentialOnFile'];
    case 'UNSCHEDULED_MIT':
      return { type: 'UNSCHEDULED', initialPayment: true, unscheduled: { subType: 'MIT' } } as const;
    default:
      return { type: 'UNSCHEDULED', initialPayment: true, unscheduled: { subType: 'CIT' } } as const;
  }
}

/**
 * Makes the examples in `tx` for `scope` at `now` (the scope's time), marks the scope (a reset brings
 * them back), and lists what it made. Throws ExampleConflict when the scope holds data they collide
 * with, and an Error when the contract's examples contradict each other.
 */
export async function seedExamples(
  deps: ExampleDeps,
  tx: StoreTransaction,
  merchant: Merchant,
  scope: Scope,
  now: Date,
): Promise<ExampleObject[]> {
  const { examples } = deps;
  const payments = new Map<string, Payment>();
  const plans = new Set<string>();
  /** The intent, the link and the pseudo numbers made, listed after the payments, plans and customer. */
  const others: ExampleObject[] = [];

  /** The context at `at` whose new ids of the kinds in `ids` are those (in order); `check` throws if one went unused. */
  const withIds = (ids: Partial<Record<IdKind, Array<string | undefined>>>, at = now) => {
    const base = appContextAt(at, merchant, scope, deps);
    const queue = new Map(
      Object.entries(ids).map(([kind, list]) => [kind, list.filter((id): id is string => id !== undefined)]),
    );
    const domain: DomainContext = {
      ...base.domain,
      newId: (kind) => queue.get(kind)?.shift() ?? base.domain.newId(kind),
    };
    // The examples' webhook URLs are the contract's own: the default policy takes them.
    const ctx: DestinationContext = { ...base, domain, destinations: destinationPolicy({}) };
    const check = (what: string) => {
      const left = [...queue].flatMap(([kind, list]) => list.map((id) => `${kind} ${id}`));
      if (left.length > 0) throw new ExampleConflict(`${what}: the scope holds another in place of ${left.join(', ')}`);
    };
    return { ctx, check };
  };
  const ok = <T extends object>(outcome: T | Rejection, what: string): T => {
    if (isRejection(outcome)) throw new ExampleConflict(`${what}: ${why(outcome)}`);
    return outcome;
  };
  const decided = (decision: Decision, what: string): Payment => {
    if (decision.outcome !== 'ok')
      throw new Error(`the contract's examples: ${what} was refused (${decision.reported.responseDescription})`);
    payments.set(decision.payment.payId, decision.payment);
    return decision.payment;
  };
  const pay = async (ctx: DestinationContext, request: Schemas['PaymentRequest'], what: string) =>
    decided(ok(await createPayment(ctx, tx, request), what).decision, what);

  // The payment GET shows, made and then changed as its history says.
  const shown = examples.response<Schemas['PaymentDetails']>('getPaymentByPayId', 200);
  if (shown.payId === undefined || shown.transId === undefined || shown.amount === undefined)
    throw new Error("the contract's example of getPaymentByPayId names no payId, transId or amount");
  const fallbackAmount = { value: shown.amount.value, currency: shown.amount.currency };
  {
    const what = `payment ${shown.payId}`;
    const { ctx, check } = withIds({ payment: [shown.payId] });
    let payment = await pay(
      ctx,
      {
        transId: shown.transId,
        ...(shown.refNr !== undefined ? { refNr: shown.refNr } : {}),
        amount: shown.amount,
        ...(shown.captureMethod ? { captureMethod: shown.captureMethod } : {}),
        ...(shown.channel !== undefined ? { channel: shown.channel } : {}),
        ...(shown.order ? { order: shown.order } : {}),
        ...(shown.customerInfo ? { customerInfo: shown.customerInfo } : {}),
        ...(shown.metadata ? { metadata: shown.metadata } : {}),
        paymentMethods: {
          integrationType: shown.integrationType ?? 'DIRECT',
          type: (shown.paymentMethodType ?? 'CARD') as Schemas['PaymentIntentMethodType'],
        },
      },
      what,
    );
    check(what);
    for (const op of shown.operations ?? []) {
      if (op.status !== 'OK') continue;
      const request = { transId: op.transId ?? shown.transId, amount: money(op.amount, fallbackAmount) };
      const payId = payment.payId;
      let decision: Decision | Rejection | undefined;
      if (op.type === 'AUTHORIZATION' && payment.state === 'PENDING') {
        const choice = { decision: 'pay' as const, paymentMethodType: payment.paymentMethodType ?? 'CARD' };
        decision = await settle(ctx, tx, completeOnHostedPage(payment, choice, ctx.domain), 'update');
      } else if (op.type === 'CONFIRMATION') decision = await paymentChanges.confirm(ctx, tx, payId, request);
      else if (op.type === 'CAPTURE') decision = await paymentChanges.capture(ctx, tx, payId, request);
      else if (op.type === 'REFUND') decision = await paymentChanges.refund(ctx, tx, payId, request);
      else if (op.type === 'REVERSAL') decision = await paymentChanges.reverse(ctx, tx, payId, request);
      else if (op.type === 'INCREMENTAL_AUTHORIZATION')
        decision = await paymentChanges.incrementAuthorization(ctx, tx, payId, request);
      if (decision) payment = decided(ok(decision, what), `${what}'s ${op.type}`);
    }
    if (shown.state !== undefined && payment.state !== shown.state)
      throw new Error(`the contract's examples: ${what} ends ${payment.state}, its example says ${shown.state}`);
  }

  // The payment each operation's path names, in the state the operation needs.
  for (const [operationId, need] of PAYMENT_NEEDS) {
    const payId = examples.pathParameter(operationId, 'id');
    const request = (examples.requests<OperationExample>(operationId)[0] ?? {}) as OperationExample;
    const made = payments.get(payId);
    if (made) {
      if (!satisfies(made, need, request))
        throw new Error(
          `the contract's examples: ${operationId} names payment ${payId}, which is ${made.state} (it needs ${need}): give it a payment of its own`,
        );
      continue;
    }
    const type = need === 'PENDING_CONFIRMATION' ? methodTypeOf(request.paymentMethods) : 'CARD';
    if (type === undefined || (need === 'PENDING_CONFIRMATION' && !MULTI_STEP_METHODS.has(type)))
      throw new Error(`the contract's example of ${operationId} names no multi-step payment method to confirm`);
    const amount = need === 'PENDING_CONFIRMATION' || !request.amount ? fallbackAmount : request.amount;
    const what = `payment ${payId} (for ${operationId})`;
    const { ctx, check } = withIds({ payment: [payId] });
    await pay(
      ctx,
      {
        transId: request.order?.merchantReference ?? request.transId ?? payId,
        ...(request.refNr !== undefined ? { refNr: request.refNr } : {}),
        amount: { value: amount.value, currency: amount.currency },
        captureMethod: { type: need === 'CAPTURED' || need === 'ANY' ? 'AUTOMATIC' : 'MANUAL' },
        paymentMethods: { integrationType: 'DIRECT', type: type as Schemas['PaymentIntentMethodType'] },
      },
      what,
    );
    check(what);
  }
  const transId = examples.pathParameter('getPaymentByTransId', 'id');
  if (![...payments.values()].some((p) => p.transId === transId)) {
    const { ctx } = withIds({});
    const request = { transId, amount: fallbackAmount, paymentMethods: { integrationType: 'DIRECT', type: 'CARD' } };
    await pay(ctx, request as Schemas['PaymentRequest'], `payment ${transId}`);
  }

  // The customer, its stored card and its plan, from an initial credential-on-file payment a month
  // ago; the plan's later payments as the clock bills them.
  const customer = examples.response<Schemas['Customer']>('getCustomer', 200);
  const method = examples.response<Schemas['StoredPaymentMethod']>('getCustomerPaymentMethod', 200);
  const plan = examples.response<Schemas['PaymentPlan']>('getPaymentPlan', 200);
  const planId = plan.id ?? examples.pathParameter('getPaymentPlan', 'paymentPlanId');
  const planPayments = examples.response<Schemas['PlanPaymentPage']>('listPaymentPlanPayments', 200).data ?? [];
  const { id: customerId, creationDate: _, billingAddress, shipping, metadata: __, ...customerInfo } = customer;
  const storedCard = method.card ?? {};
  const expiry = storedCard.expiryDate?.replace('-', '');
  const card = {
    cardNumber: cardNumberFor(storedCard),
    ...(expiry !== undefined && /^\d{6}$/.test(expiry) ? { expiryDate: expiry } : {}),
    ...(storedCard.cardHolderName !== undefined ? { cardHolderName: storedCard.cardHolderName } : {}),
  };
  const initialPayment = async (
    planId: string,
    type: Schemas['PaymentPlan']['paymentPlanType'],
    fields: Partial<Schemas['PaymentRequest']> & Pick<Schemas['PaymentRequest'], 'amount'>,
    ids: Partial<Record<IdKind, Array<string | undefined>>>,
    at: Date,
  ) => {
    const what = `payment plan ${planId}`;
    const { ctx, check } = withIds({ ...ids, plan: [planId] }, at);
    await pay(
      ctx,
      {
        transId: `${planId}-INITIAL`,
        captureMethod: { type: 'AUTOMATIC' },
        customerInfo,
        ...(billingAddress ? { billingAddress } : {}),
        ...(shipping ? { shipping } : {}),
        credentialOnFile: credentialOnFileFor({
          paymentPlanType: type,
          recurring: plan.recurring,
          installments: plan.installments,
        }),
        paymentMethods: { integrationType: 'DIRECT', type: 'CARD', card },
        ...fields,
      },
      what,
    );
    check(what);
    plans.add(planId);
  };
  const planAmount = money(plan.recurring?.amount, fallbackAmount);
  await initialPayment(
    planId,
    plan.paymentPlanType,
    {
      ...(plan.order?.merchantReference !== undefined ? { transId: plan.order.merchantReference } : {}),
      amount: planAmount,
      order: { ...plan.order, ...(plan.description !== undefined ? { description: plan.description } : {}) },
    },
    {
      payment: [planPayments[0]?.payId],
      customer: [customerId],
      pseudoNumber: [method.pseudoNumber],
      paymentMethod: [method.id],
    },
    new Date(now.getTime() - 30 * DAY_MS),
  );
  for (const later of planPayments.slice(1)) {
    const current = (await tx.plans.get(scope, planId)) as PaymentPlan;
    const next = current.nextPaymentDate === undefined ? now : new Date(`${current.nextPaymentDate}Z`);
    const at = next < now ? next : now;
    const what = `payment ${later.payId} of plan ${planId}`;
    const { ctx, check } = withIds({ payment: [later.payId] }, at);
    const charge = {
      ...scheduledCharge(current, at.toISOString()),
      ...(current.type !== 'RECURRING' ? { amount: { value: money(later.amount, planAmount).value } } : {}),
    };
    decided(ok(await chargePlan(ctx, tx, current, charge), what).decision, what);
    check(what);
  }

  // The plan the charge names: one the merchant triggers, of the same customer and card.
  const chargedId = examples.pathParameter('chargePaymentPlan', 'paymentPlanId');
  if (!plans.has(chargedId)) {
    const charge = examples.request<Schemas['PlanChargeRequest']>('chargePaymentPlan');
    await initialPayment(
      chargedId,
      charge.amount?.value !== undefined ? 'UNSCHEDULED_MIT' : 'DELAYED_SHIPMENT',
      {
        amount: {
          value: charge.amount?.value ?? fallbackAmount.value,
          currency: planAmount.currency,
        },
        customerInfo: { merchantCustomerId: customer.merchantCustomerId },
        ...(charge.statementDescriptor !== undefined ? { statementDescriptor: charge.statementDescriptor } : {}),
      },
      {},
      now,
    );
  }

  // The payment intent the confirmation names, the payment link the creation answers with, the pseudo numbers.
  const intentId = examples.pathParameter('confirmPaymentIntent', 'id');
  {
    const { ctx, check } = withIds({ intent: [intentId] });
    const intent = ok(
      await createPaymentIntent(ctx, tx, examples.request('createPaymentIntent')),
      `intent ${intentId}`,
    );
    check(`payment intent ${intentId}`);
    others.push({ kind: 'paymentIntent', id: intent.intent.id, state: intent.intent.status });
  }
  const linkId = examples.response<Schemas['PaymentLink']>('createPaymentLink', 201).id;
  {
    const { ctx, check } = withIds({ link: [linkId] });
    const link = ok(await createPaymentLink(ctx, tx, examples.request('createPaymentLink')), `link ${linkId}`);
    check(`payment link ${linkId}`);
    others.push({ kind: 'paymentLink', id: link.link.id, state: link.link.status });
  }
  const tokens = examples.responses<Schemas['PseudoNumber']>('createPseudoNumber', 200);
  for (const request of examples.requests<{ cardNumber?: string; iban?: string }>('createPseudoNumber')) {
    const token = tokens.find((t) => t.type === (request.cardNumber !== undefined ? 'CARD' : 'IBAN'));
    if (!token) continue;
    const what = `pseudo number ${token.pseudoNumber}`;
    const { ctx, check } = withIds({ pseudoNumber: [token.pseudoNumber] });
    const made = ok(await createPseudoNumber(ctx, tx, request), what);
    if (made.pseudoNumber !== token.pseudoNumber)
      throw new ExampleConflict(`${what}: the scope has ${made.pseudoNumber} for its ${token.type} number`);
    check(what);
    others.push({ kind: 'pseudoNumber', id: made.pseudoNumber });
  }

  const objects: ExampleObject[] = [];
  for (const p of payments.values()) {
    const payment = (await tx.payments.get(scope, p.payId)) ?? p;
    objects.push({ kind: 'payment', id: payment.payId, transId: payment.transId, state: payment.state });
  }
  for (const id of plans) {
    const made = await tx.plans.get(scope, id);
    if (made) objects.push({ kind: 'paymentPlan', id, state: made.status });
  }
  objects.push({ kind: 'customer', id: customerId }, { kind: 'paymentMethod', id: method.id });
  if (method.pseudoNumber !== undefined) objects.push({ kind: 'pseudoNumber', id: method.pseudoNumber });
  objects.push(...others);
  await tx.examples.mark(scope);
  return objects;
}

/**
 * Gives a merchant's scope the contract's examples, in one transaction, at `now` (the scope's time):
 * what was made; 404 for an unknown merchant; a conflict, and nothing made, when the scope holds
 * data the examples collide with.
 */
export async function giveExamples(
  store: Store,
  deps: ExampleDeps,
  merchantId: string,
  environment: Environment,
  now: Date,
): Promise<{ objects: ExampleObject[] } | { conflict: string } | Rejection> {
  const merchant = await store.merchants.get(merchantId);
  if (!merchant) return notFound('Merchant', merchantId);
  const scope: Scope = { merchantId, environment };
  try {
    return { objects: await store.transaction((tx) => seedExamples(deps, tx, merchant, scope, now)) };
  } catch (err) {
    if (err instanceof ExampleConflict || err instanceof DuplicateKeyError)
      return {
        conflict: `${err instanceof ExampleConflict ? err.message : `an id of the examples is taken (${err.constraint})`}; reset the scope first, or give the examples to another merchant`,
      };
    throw err;
  }
}
