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

/** An amount with both its parts. */
type Amount = { value: number; currency: string };

/** An example's amount, its missing parts from `fallback`. */
const money = (amount: { value?: number; currency?: string } | undefined, fallback: Amount) => ({
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
  amount?: Amount;
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
 * Makes the examples in `tx` for `scope` at `now` (the scope's time), and lists what it made. Throws ExampleConflict when the scope holds data they collide
 * with, and an Error when the contract's examples contradict each other.
 */
export async function seedExamples(
  deps: ExampleDeps,
  tx: StoreTransaction,
  merchant: Merchant,
  scope: Scope,
  now: Date,
): Promise<ExampleObject[]> {
  const seeder = new ExampleSeeder(deps, tx, merchant, scope, now);
  const fallbackAmount = await seeder.shownPayment();
  await seeder.operationsPayments(fallbackAmount);
  await seeder.paymentByTransId(fallbackAmount);
  const customer = await seeder.customerAndPlans(fallbackAmount);
  await seeder.intentAndLink();
  await seeder.pseudoNumbers();
  return seeder.made(customer);
}

/** Ids to hand out, by kind, in order (undefined: none of the example's, a new one). */
type ExampleIds = Partial<Record<IdKind, Array<string | undefined>>>;

/** The customer the examples made, with its stored card. */
interface ExampleCustomer {
  customerId: string;
  method: Schemas['StoredPaymentMethod'];
}

/** The seeding of one scope, object by kind of object, and what it made. */
class ExampleSeeder {
  readonly #examples: ContractExamples;
  readonly #payments = new Map<string, Payment>();
  readonly #plans = new Set<string>();
  /** The intent, the link and the pseudo numbers made, listed after the payments, plans and customer. */
  readonly #others: ExampleObject[] = [];

  constructor(
    private readonly deps: ExampleDeps,
    private readonly tx: StoreTransaction,
    private readonly merchant: Merchant,
    private readonly scope: Scope,
    private readonly now: Date,
  ) {
    this.#examples = deps.examples;
  }

  /**
   * The payment GET shows, made and then changed as its history says. Its amount is the one the
   * other examples fall back on where they give none.
   */
  async shownPayment(): Promise<Amount> {
    const shown = this.#examples.response<Schemas['PaymentDetails']>('getPaymentByPayId', 200);
    if (shown.payId === undefined || shown.transId === undefined || shown.amount === undefined)
      throw new Error("the contract's example of getPaymentByPayId names no payId, transId or amount");
    const what = `payment ${shown.payId}`;
    const { ctx, check } = this.#withIds({ payment: [shown.payId] });
    let payment = await this.#pay(
      ctx,
      {
        transId: shown.transId,
        refNr: shown.refNr,
        amount: shown.amount,
        captureMethod: shown.captureMethod,
        channel: shown.channel,
        order: shown.order,
        customerInfo: shown.customerInfo,
        metadata: shown.metadata,
        paymentMethods: {
          integrationType: shown.integrationType ?? 'DIRECT',
          type: (shown.paymentMethodType ?? 'CARD') as Schemas['PaymentIntentMethodType'],
        },
      },
      what,
    );
    check(what);
    const fallbackAmount = { value: shown.amount.value, currency: shown.amount.currency };
    for (const op of shown.operations ?? []) {
      if (op.status !== 'OK') continue;
      const request = { transId: op.transId ?? shown.transId, amount: money(op.amount, fallbackAmount) };
      const decision = await this.#replay(ctx, payment, op.type, request);
      if (decision) payment = this.#decided(this.#ok(decision, what), `${what}'s ${op.type}`);
    }
    if (shown.state !== undefined && payment.state !== shown.state)
      throw new Error(`the contract's examples: ${what} ends ${payment.state}, its example says ${shown.state}`);
    return fallbackAmount;
  }

  /** One operation of the shown payment's history, made as its request would make it (undefined: none to make). */
  async #replay(
    ctx: DestinationContext,
    payment: Payment,
    type: string | undefined,
    request: { transId: string; amount: Amount },
  ): Promise<Decision | Rejection | undefined> {
    const { tx } = this;
    const payId = payment.payId;
    switch (type) {
      case 'AUTHORIZATION': {
        if (payment.state !== 'PENDING') return undefined;
        const choice = { decision: 'pay' as const, paymentMethodType: payment.paymentMethodType ?? 'CARD' };
        return settle(ctx, tx, completeOnHostedPage(payment, choice, ctx.domain), 'update');
      }
      case 'CONFIRMATION':
        return paymentChanges.confirm(ctx, tx, payId, request);
      case 'CAPTURE':
        return paymentChanges.capture(ctx, tx, payId, request);
      case 'REFUND':
        return paymentChanges.refund(ctx, tx, payId, request);
      case 'REVERSAL':
        return paymentChanges.reverse(ctx, tx, payId, request);
      case 'INCREMENTAL_AUTHORIZATION':
        return paymentChanges.incrementAuthorization(ctx, tx, payId, request);
      default:
        return undefined;
    }
  }

  /** The payment each payment operation's path names, in the state the operation needs. */
  async operationsPayments(fallbackAmount: Amount): Promise<void> {
    for (const [operationId, need] of PAYMENT_NEEDS) {
      const payId = this.#examples.pathParameter(operationId, 'id');
      const request = (this.#examples.requests<OperationExample>(operationId)[0] ?? {}) as OperationExample;
      const made = this.#payments.get(payId);
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
      const { ctx, check } = this.#withIds({ payment: [payId] });
      await this.#pay(
        ctx,
        {
          transId: request.order?.merchantReference ?? request.transId ?? payId,
          refNr: request.refNr,
          amount: { value: amount.value, currency: amount.currency },
          captureMethod: { type: need === 'CAPTURED' || need === 'ANY' ? 'AUTOMATIC' : 'MANUAL' },
          paymentMethods: { integrationType: 'DIRECT', type: type as Schemas['PaymentIntentMethodType'] },
        },
        what,
      );
      check(what);
    }
  }

  /** The payment getPaymentByTransId names, unless one made already has its transId. */
  async paymentByTransId(fallbackAmount: Amount): Promise<void> {
    const transId = this.#examples.pathParameter('getPaymentByTransId', 'id');
    if ([...this.#payments.values()].some((p) => p.transId === transId)) return;
    const { ctx } = this.#withIds({});
    const request = { transId, amount: fallbackAmount, paymentMethods: { integrationType: 'DIRECT', type: 'CARD' } };
    await this.#pay(ctx, request as Schemas['PaymentRequest'], `payment ${transId}`);
  }

  /**
   * The customer, its stored card and its plan, from an initial credential-on-file payment a month
   * ago; the plan's later payments as the clock bills them; and the plan the charge names.
   */
  async customerAndPlans(fallbackAmount: Amount): Promise<ExampleCustomer> {
    const examples = this.#examples;
    const customer = examples.response<Schemas['Customer']>('getCustomer', 200);
    const method = examples.response<Schemas['StoredPaymentMethod']>('getCustomerPaymentMethod', 200);
    const plan = examples.response<Schemas['PaymentPlan']>('getPaymentPlan', 200);
    const planId = plan.id ?? examples.pathParameter('getPaymentPlan', 'paymentPlanId');
    const planPayments = examples.response<Schemas['PlanPaymentPage']>('listPaymentPlanPayments', 200).data ?? [];
    const { id: customerId, creationDate: _, billingAddress, shipping, metadata: __, ...customerInfo } = customer;
    const initial = {
      customerInfo,
      billingAddress,
      shipping,
      card: cardOf(method.card ?? {}),
      schedule: { recurring: plan.recurring, installments: plan.installments },
    };
    const planAmount = money(plan.recurring?.amount, fallbackAmount);
    await this.#initialPayment(
      planId,
      plan.paymentPlanType,
      initial,
      {
        transId: plan.order?.merchantReference,
        amount: planAmount,
        // The plan's description is its order's.
        order: { ...plan.order, description: plan.description },
      },
      {
        payment: [planPayments[0]?.payId],
        customer: [customerId],
        pseudoNumber: [method.pseudoNumber],
        paymentMethod: [method.id],
      },
      new Date(this.now.getTime() - 30 * DAY_MS),
    );
    for (const later of planPayments.slice(1)) await this.#billLater(planId, later, planAmount);

    // The plan the charge names: one the merchant triggers, of the same customer and card.
    const chargedId = examples.pathParameter('chargePaymentPlan', 'paymentPlanId');
    if (!this.#plans.has(chargedId)) {
      const charge = examples.request<Schemas['PlanChargeRequest']>('chargePaymentPlan');
      await this.#initialPayment(
        chargedId,
        charge.amount?.value !== undefined ? 'UNSCHEDULED_MIT' : 'DELAYED_SHIPMENT',
        initial,
        {
          amount: { value: charge.amount?.value ?? fallbackAmount.value, currency: planAmount.currency },
          customerInfo: { merchantCustomerId: customer.merchantCustomerId },
          statementDescriptor: charge.statementDescriptor,
        },
        {},
        this.now,
      );
    }
    return { customerId, method };
  }

  /** The initial credential-on-file payment that makes the plan `planId` (and its customer and stored card). */
  async #initialPayment(
    planId: string,
    type: Schemas['PaymentPlan']['paymentPlanType'],
    initial: Pick<Schemas['PaymentRequest'], 'customerInfo' | 'billingAddress' | 'shipping'> & {
      card: ReturnType<typeof cardOf>;
      schedule: Pick<Schemas['PaymentPlan'], 'recurring' | 'installments'>;
    },
    fields: Pick<Schemas['PaymentRequest'], 'amount' | 'order' | 'customerInfo' | 'statementDescriptor'> & {
      transId?: string | undefined;
    },
    ids: ExampleIds,
    at: Date,
  ): Promise<void> {
    const what = `payment plan ${planId}`;
    const { ctx, check } = this.#withIds({ ...ids, plan: [planId] }, at);
    await this.#pay(
      ctx,
      {
        transId: fields.transId ?? `${planId}-INITIAL`,
        captureMethod: { type: 'AUTOMATIC' },
        customerInfo: fields.customerInfo ?? initial.customerInfo,
        billingAddress: initial.billingAddress,
        shipping: initial.shipping,
        credentialOnFile: credentialOnFileFor({ paymentPlanType: type, ...initial.schedule }),
        paymentMethods: { integrationType: 'DIRECT', type: 'CARD', card: initial.card },
        amount: fields.amount,
        order: fields.order,
        statementDescriptor: fields.statementDescriptor,
      },
      what,
    );
    check(what);
    this.#plans.add(planId);
  }

  /** A later payment of the plan, billed as the clock bills it: at its next payment date (or now). */
  async #billLater(
    planId: string,
    later: NonNullable<Schemas['PlanPaymentPage']['data']>[number],
    planAmount: Amount,
  ): Promise<void> {
    const { tx, now } = this;
    const current = (await tx.plans.get(this.scope, planId)) as PaymentPlan;
    const next = current.nextPaymentDate === undefined ? now : new Date(`${current.nextPaymentDate}Z`);
    const at = new Date(Math.min(next.getTime(), now.getTime()));
    const what = `payment ${later.payId} of plan ${planId}`;
    const { ctx, check } = this.#withIds({ payment: [later.payId] }, at);
    const scheduled = scheduledCharge(current, at.toISOString());
    // A recurring plan charges its own amount; the others the amount of the example's payment.
    const charge =
      current.type === 'RECURRING'
        ? scheduled
        : { ...scheduled, amount: { value: money(later.amount, planAmount).value } };
    this.#decided(this.#ok(await chargePlan(ctx, tx, current, charge), what).decision, what);
    check(what);
  }

  /** The payment intent the confirmation names, and the payment link the creation answers with. */
  async intentAndLink(): Promise<void> {
    const { tx } = this;
    const intentId = this.#examples.pathParameter('confirmPaymentIntent', 'id');
    {
      const { ctx, check } = this.#withIds({ intent: [intentId] });
      const request = this.#examples.request<Schemas['PaymentIntentRequest']>('createPaymentIntent');
      const intent = this.#ok(await createPaymentIntent(ctx, tx, request), `intent ${intentId}`);
      check(`payment intent ${intentId}`);
      this.#others.push({ kind: 'paymentIntent', id: intent.intent.id, state: intent.intent.status });
    }
    const linkId = this.#examples.response<Schemas['PaymentLink']>('createPaymentLink', 201).id;
    {
      const { ctx, check } = this.#withIds({ link: [linkId] });
      const request = this.#examples.request<Schemas['PaymentLinkRequest']>('createPaymentLink');
      const link = this.#ok(await createPaymentLink(ctx, tx, request), `link ${linkId}`);
      check(`payment link ${linkId}`);
      this.#others.push({ kind: 'paymentLink', id: link.link.id, state: link.link.status });
    }
  }

  /** The pseudo numbers of the tokenization examples, each under its example's number. */
  async pseudoNumbers(): Promise<void> {
    const tokens = this.#examples.responses<Schemas['PseudoNumber']>('createPseudoNumber', 200);
    for (const request of this.#examples.requests<{ cardNumber?: string; iban?: string }>('createPseudoNumber')) {
      const token = tokens.find((t) => t.type === (request.cardNumber !== undefined ? 'CARD' : 'IBAN'));
      if (!token) continue;
      const what = `pseudo number ${token.pseudoNumber}`;
      const { ctx, check } = this.#withIds({ pseudoNumber: [token.pseudoNumber] });
      const made = this.#ok(await createPseudoNumber(ctx, this.tx, request), what);
      if (made.pseudoNumber !== token.pseudoNumber)
        throw new ExampleConflict(`${what}: the scope has ${made.pseudoNumber} for its ${token.type} number`);
      check(what);
      this.#others.push({ kind: 'pseudoNumber', id: made.pseudoNumber });
    }
  }

  /** What the seeding made, as it is now: the payments, the plans, the customer and its card, the others. */
  async made({ customerId, method }: ExampleCustomer): Promise<ExampleObject[]> {
    const { tx, scope } = this;
    const objects: ExampleObject[] = [];
    for (const p of this.#payments.values()) {
      const payment = (await tx.payments.get(scope, p.payId)) ?? p;
      objects.push({ kind: 'payment', id: payment.payId, transId: payment.transId, state: payment.state });
    }
    for (const id of this.#plans) {
      const made = await tx.plans.get(scope, id);
      if (made) objects.push({ kind: 'paymentPlan', id, state: made.status });
    }
    objects.push({ kind: 'customer', id: customerId }, { kind: 'paymentMethod', id: method.id });
    if (method.pseudoNumber !== undefined) objects.push({ kind: 'pseudoNumber', id: method.pseudoNumber });
    objects.push(...this.#others);
    return objects;
  }

  /** The context at `at` whose new ids of the kinds in `ids` are those (in order); `check` throws if one went unused. */
  #withIds(ids: ExampleIds, at = this.now): { ctx: DestinationContext; check: (what: string) => void } {
    const base = appContextAt(at, this.merchant, this.scope, this.deps);
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
  }

  #ok<T extends object>(outcome: T | Rejection, what: string): T {
    if (isRejection(outcome)) throw new ExampleConflict(`${what}: ${why(outcome)}`);
    return outcome;
  }

  #decided(decision: Decision, what: string): Payment {
    if (decision.outcome !== 'ok')
      throw new Error(`the contract's examples: ${what} was refused (${decision.reported.responseDescription})`);
    this.#payments.set(decision.payment.payId, decision.payment);
    return decision.payment;
  }

  async #pay(ctx: DestinationContext, request: Schemas['PaymentRequest'], what: string): Promise<Payment> {
    return this.#decided(this.#ok(await createPayment(ctx, this.tx, request), what).decision, what);
  }
}

/** The card of a payment request that stores the example's card: its number made up, its expiry and holder. */
function cardOf(stored: Schemas['CardSummary']) {
  const expiry = stored.expiryDate?.replace('-', '');
  return {
    cardNumber: cardNumberFor(stored),
    expiryDate: expiry !== undefined && /^\d{6}$/.test(expiry) ? expiry : undefined,
    cardHolderName: stored.cardHolderName,
  };
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
