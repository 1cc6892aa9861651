// Making a scope's data as requests would make it, for the sandbox's own fixtures: the contract's
// examples (seed.ts) and a team's data files (data-load.ts). Everything goes through the use cases
// and the domain's state machines, in the caller's transaction; what differs from a request is that
// the new ids may be given (the domain asks its context for every new id, and a Seeding's context
// hands out the given ones first) and that the time may be earlier than now (a plan's initial
// payment, a month back). Nothing is notified: a fixture's webhook URLs are not the merchant's.
import type { ContractTables } from '../contract/contract.js';
import { scheduledCharge } from '../domain/clock.js';
import type { DomainContext, IdKind } from '../domain/context.js';
import type { Decision } from '../domain/payments.js';
import type { Merchant, Payment, PaymentPlan, Schemas, Scope } from '../domain/types.js';
import type { StoreTransaction } from '../store/store.js';
import { appContextAt } from './context.js';
import { type DestinationContext, destinationPolicy } from './destinations.js';
import { isRejection, type Rejection } from './outcomes.js';
import { createPayment } from './payments.js';
import { chargePlan } from './plans.js';

/** What seeding reads and computes with, besides the store. */
export interface SeedingDeps {
  tables: ContractTables;
  fingerprint(text: string): string;
}

/** The scope holds data a fixture collides with (a taken transId or id), or a use case refused it: nothing is kept. */
export class SeedConflict extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SeedConflict';
  }
}

/** The lifecycle declined what a fixture asked of it (a capture beyond the amount): the fixture contradicts the rules. */
export class SeedRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SeedRefused';
  }
}

/** Ids to hand out, by kind, in order (undefined: none given, a new one). */
export type SeedIds = Partial<Record<IdKind, Array<string | undefined>>>;

/** One object a seeding made in the scope, as the admin API lists it. */
export interface SeededObject {
  kind: 'payment' | 'paymentPlan' | 'customer' | 'paymentMethod' | 'pseudoNumber' | 'paymentIntent' | 'paymentLink';
  id: string;
  /** A payment's state; a plan's, an intent's or a link's status. */
  state?: string;
  /** A payment's transId. */
  transId?: string;
}

/** An amount with both its parts. */
export type Amount = { value: number; currency: string };

/** Why a use case refused, in a sentence. */
export function why(rejection: Rejection): string {
  if (rejection.rejected === 'invalid') return `${rejection.field} ${rejection.message}`;
  if (rejection.rejected === 'notFound') return `no ${rejection.what.toLowerCase()} ${rejection.id}`;
  return rejection.result.responseDescription ?? 'refused';
}

/** How often a plan bills (recurring), or how many times (installments), as its initial payment says. */
export interface PlanSchedule {
  recurring?: { frequency?: Schemas['PlanFrequency'] | undefined } | undefined;
  installments?:
    | { totalInstallments?: number | undefined; frequency?: Schemas['PlanFrequency'] | undefined }
    | undefined;
}

/** The credential on file whose initial payment makes a plan of this type. */
export function credentialOnFileFor(
  plan: Pick<Schemas['PaymentPlan'], 'paymentPlanType'> & PlanSchedule,
): Schemas['CredentialOnFile'] {
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

/** What a plan's initial payment carries besides its amount: the customer, its addresses, its card and the plan's schedule. */
export interface PlanCustomer {
  customerInfo?: Schemas['CustomerInfo'];
  billingAddress?: Schemas['Address'];
  shipping?: Schemas['Shipping'];
  /** The card as a payment request's `paymentMethods.card` sends it (a number, or a stored card's pseudo number). */
  card: { cardNumber?: string; pseudoNumber?: string; expiryDate?: string; cardHolderName?: string };
  schedule: PlanSchedule;
}

/** What a plan's initial payment says besides its customer: its transId, amount, order and descriptor. */
export type InitialPaymentFields = Pick<
  Schemas['PaymentRequest'],
  'amount' | 'order' | 'customerInfo' | 'statementDescriptor'
> & { transId: string };

/** The request of the initial credential-on-file card payment (captured at once) that makes a plan of `type`. */
export function initialPaymentRequest(
  type: Schemas['PaymentPlan']['paymentPlanType'],
  initial: PlanCustomer,
  fields: InitialPaymentFields,
): Schemas['PaymentRequest'] {
  return {
    transId: fields.transId,
    captureMethod: { type: 'AUTOMATIC' },
    customerInfo: fields.customerInfo ?? initial.customerInfo,
    billingAddress: initial.billingAddress,
    shipping: initial.shipping,
    credentialOnFile: credentialOnFileFor({ paymentPlanType: type, ...initial.schedule }),
    paymentMethods: { integrationType: 'DIRECT', type: 'CARD', card: initial.card },
    amount: fields.amount,
    order: fields.order,
    statementDescriptor: fields.statementDescriptor,
  };
}

/** When the clock bills a plan that a fixture made: on its next payment date, or now if that is later (never in the future). */
export function nextBilling(plan: Pick<PaymentPlan, 'nextPaymentDate'>, now: Date): Date {
  const next = plan.nextPaymentDate === undefined ? now : new Date(`${plan.nextPaymentDate}Z`);
  return new Date(Math.min(next.getTime(), now.getTime()));
}

/** The seeding of one scope in one transaction: contexts that hand out given ids, and the payments and plans made. */
export class Seeding {
  /** The payments made, by payId, as their last decision left them. */
  readonly payments = new Map<string, Payment>();
  /** The plans made, in order. */
  readonly plans = new Set<string>();

  constructor(
    private readonly deps: SeedingDeps,
    readonly tx: StoreTransaction,
    private readonly merchant: Merchant,
    readonly scope: Scope,
    readonly now: Date,
  ) {}

  /** The context at `at` whose new ids of the kinds in `ids` are those (in order); `check` throws if one went unused. */
  withIds(ids: SeedIds, at = this.now): { ctx: DestinationContext; check: (what: string) => void } {
    const base = appContextAt(at, this.merchant, this.scope, this.deps);
    const queue = new Map(
      Object.entries(ids).map(([kind, list]) => [kind, list.filter((id): id is string => id !== undefined)]),
    );
    const domain: DomainContext = {
      ...base.domain,
      newId: (kind) => queue.get(kind)?.shift() ?? base.domain.newId(kind),
    };
    // A fixture's webhook URLs are its own, never called: the default policy takes them.
    const ctx: DestinationContext = { ...base, domain, destinations: destinationPolicy({}) };
    const check = (what: string) => {
      const left = [...queue].flatMap(([kind, list]) => list.map((id) => `${kind} ${id}`));
      if (left.length > 0) throw new SeedConflict(`${what}: the scope holds another in place of ${left.join(', ')}`);
    };
    return { ctx, check };
  }

  ok<T extends object>(outcome: T | Rejection, what: string): T {
    if (isRejection(outcome)) throw new SeedConflict(`${what}: ${why(outcome)}`);
    return outcome;
  }

  /** The payment a decision left, recorded; a refusal is SeedRefused. */
  decided(decision: Decision, what: string): Payment {
    if (decision.outcome !== 'ok')
      throw new SeedRefused(`${what} was refused (${decision.reported.responseDescription})`);
    this.payments.set(decision.payment.payId, decision.payment);
    return decision.payment;
  }

  /** A payment made by `request`: authorized (or waiting), never declined. */
  async pay(ctx: DestinationContext, request: Schemas['PaymentRequest'], what: string): Promise<Payment> {
    return this.decided(this.ok(await createPayment(ctx, this.tx, request), what).decision, what);
  }

  /**
   * The initial credential-on-file payment that makes a plan of `type` (initialPaymentRequest), with
   * its customer and stored card, at `at`; its payment. The plan's id is `ids.plan`'s, else a new one.
   */
  async initialPayment(
    type: Schemas['PaymentPlan']['paymentPlanType'],
    initial: PlanCustomer,
    fields: InitialPaymentFields,
    ids: SeedIds,
    at: Date,
    what: string,
  ): Promise<Payment> {
    const { ctx, check } = this.withIds(ids, at);
    const payment = await this.pay(ctx, initialPaymentRequest(type, initial, fields), what);
    check(what);
    if (payment.paymentPlanId === undefined) throw new SeedRefused(`${what}: its initial payment made no plan`);
    this.plans.add(payment.paymentPlanId);
    return payment;
  }

  /** The payments and plans made, as they are now (a payment's last state, a plan's status). */
  async paymentsAndPlans(): Promise<SeededObject[]> {
    const { tx, scope } = this;
    const objects: SeededObject[] = [];
    for (const p of this.payments.values()) {
      const payment = (await tx.payments.get(scope, p.payId)) ?? p;
      objects.push({ kind: 'payment', id: payment.payId, transId: payment.transId, state: payment.state });
    }
    for (const id of this.plans) {
      const made = await tx.plans.get(scope, id);
      if (made) objects.push({ kind: 'paymentPlan', id, state: made.status });
    }
    return objects;
  }

  /**
   * A later payment of the plan, billed as the clock bills it: at its next payment date, or now if
   * that is later (never in the future); `payId` its id, `amountValue` the amount of a plan that
   * charges another than its own.
   */
  async billLater(planId: string, later: { payId?: string; amountValue?: number } = {}): Promise<Payment> {
    const { tx, now } = this;
    const current = (await tx.plans.get(this.scope, planId)) as PaymentPlan;
    const at = nextBilling(current, now);
    const what = later.payId === undefined ? `a payment of plan ${planId}` : `payment ${later.payId} of plan ${planId}`;
    const { ctx, check } = this.withIds({ payment: [later.payId] }, at);
    const scheduled = scheduledCharge(current, at.toISOString());
    // A recurring plan charges its own amount; the others the amount given.
    const charge =
      current.type === 'RECURRING' || later.amountValue === undefined
        ? scheduled
        : { ...scheduled, amount: { value: later.amountValue } };
    const payment = this.decided(this.ok(await chargePlan(ctx, tx, current, charge), what).decision, what);
    check(what);
    return payment;
  }
}
