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

import type { ContractExamples } from '../contract/examples.js';
import { completeOnHostedPage, type Decision, MULTI_STEP_METHODS, refundable } from '../domain/payments.js';
import { CARD_RANGES, passesLuhn } from '../domain/services.js';
import type { Environment, Merchant, Payment, Schemas, Scope } from '../domain/types.js';
import { DuplicateKeyError, type Store, type StoreTransaction } from '../store/store.js';
import type { DestinationContext } from './destinations.js';
import { createPaymentIntent, createPaymentLink } from './flows.js';
import { notFound, type Rejection } from './outcomes.js';
import { methodTypeOf, paymentChanges, settle } from './payments.js';
import {
  type Amount,
  type PlanCustomer,
  SeedConflict,
  type SeededObject,
  Seeding,
  type SeedingDeps,
} from './seeding.js';
import { createPseudoNumber } from './services.js';

/** What the seeding reads and computes with, besides the store. */
export interface ExampleDeps extends SeedingDeps {
  examples: ContractExamples;
}

/** One object the examples gave the scope. */
export type ExampleObject = SeededObject;

const DAY_MS = 24 * 3_600_000;

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

/**
 * Makes the examples in `tx` for `scope` at `now` (the scope's time), and lists what it made. Throws
 * SeedConflict when the scope holds data they collide with, and an Error when the contract's
 * examples contradict each other.
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

/** The customer the examples made, with its stored card. */
interface ExampleCustomer {
  customerId: string;
  method: Schemas['StoredPaymentMethod'];
}

/** The seeding of one scope, object by kind of object, and what it made. */
class ExampleSeeder {
  readonly #examples: ContractExamples;
  readonly #seeding: Seeding;
  /** The intent, the link and the pseudo numbers made, listed after the payments, plans and customer. */
  readonly #others: ExampleObject[] = [];

  constructor(deps: ExampleDeps, tx: StoreTransaction, merchant: Merchant, scope: Scope, now: Date) {
    this.#examples = deps.examples;
    this.#seeding = new Seeding(deps, tx, merchant, scope, now);
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
    const seeding = this.#seeding;
    const { ctx, check } = seeding.withIds({ payment: [shown.payId] });
    let payment = await seeding.pay(
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
      if (decision) payment = seeding.decided(seeding.ok(decision, what), `${what}'s ${op.type}`);
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
    const { tx } = this.#seeding;
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
      const made = this.#seeding.payments.get(payId);
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
      const { ctx, check } = this.#seeding.withIds({ payment: [payId] });
      await this.#seeding.pay(
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
    if ([...this.#seeding.payments.values()].some((p) => p.transId === transId)) return;
    const { ctx } = this.#seeding.withIds({});
    const request = { transId, amount: fallbackAmount, paymentMethods: { integrationType: 'DIRECT', type: 'CARD' } };
    await this.#seeding.pay(ctx, request as Schemas['PaymentRequest'], `payment ${transId}`);
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
    const initial: PlanCustomer = {
      customerInfo,
      billingAddress,
      shipping,
      card: cardOf(method.card ?? {}),
      schedule: { recurring: plan.recurring, installments: plan.installments },
    };
    const planAmount = money(plan.recurring?.amount, fallbackAmount);
    const seeding = this.#seeding;
    await seeding.initialPayment(
      plan.paymentPlanType,
      initial,
      {
        transId: plan.order?.merchantReference ?? `${planId}-INITIAL`,
        amount: planAmount,
        // The plan's description is its order's.
        order: { ...plan.order, description: plan.description },
      },
      {
        plan: [planId],
        payment: [planPayments[0]?.payId],
        customer: [customerId],
        pseudoNumber: [method.pseudoNumber],
        paymentMethod: [method.id],
      },
      new Date(seeding.now.getTime() - 30 * DAY_MS),
      `payment plan ${planId}`,
    );
    for (const later of planPayments.slice(1))
      await seeding.billLater(planId, { payId: later.payId, amountValue: money(later.amount, planAmount).value });

    // The plan the charge names: one the merchant triggers, of the same customer and card.
    const chargedId = examples.pathParameter('chargePaymentPlan', 'paymentPlanId');
    if (!seeding.plans.has(chargedId)) {
      const charge = examples.request<Schemas['PlanChargeRequest']>('chargePaymentPlan');
      await seeding.initialPayment(
        charge.amount?.value !== undefined ? 'UNSCHEDULED_MIT' : 'DELAYED_SHIPMENT',
        initial,
        {
          transId: `${chargedId}-INITIAL`,
          amount: { value: charge.amount?.value ?? fallbackAmount.value, currency: planAmount.currency },
          customerInfo: { merchantCustomerId: customer.merchantCustomerId },
          statementDescriptor: charge.statementDescriptor,
        },
        { plan: [chargedId] },
        seeding.now,
        `payment plan ${chargedId}`,
      );
    }
    return { customerId, method };
  }

  /** The payment intent the confirmation names, and the payment link the creation answers with. */
  async intentAndLink(): Promise<void> {
    const { tx } = this.#seeding;
    const seeding = this.#seeding;
    const intentId = this.#examples.pathParameter('confirmPaymentIntent', 'id');
    {
      const { ctx, check } = seeding.withIds({ intent: [intentId] });
      const request = this.#examples.request<Schemas['PaymentIntentRequest']>('createPaymentIntent');
      const intent = seeding.ok(await createPaymentIntent(ctx, tx, request), `intent ${intentId}`);
      check(`payment intent ${intentId}`);
      this.#others.push({ kind: 'paymentIntent', id: intent.intent.id, state: intent.intent.status });
    }
    const linkId = this.#examples.response<Schemas['PaymentLink']>('createPaymentLink', 201).id;
    {
      const { ctx, check } = seeding.withIds({ link: [linkId] });
      const request = this.#examples.request<Schemas['PaymentLinkRequest']>('createPaymentLink');
      const link = seeding.ok(await createPaymentLink(ctx, tx, request), `link ${linkId}`);
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
      const { ctx, check } = this.#seeding.withIds({ pseudoNumber: [token.pseudoNumber] });
      const made = this.#seeding.ok(await createPseudoNumber(ctx, this.#seeding.tx, request), what);
      if (made.pseudoNumber !== token.pseudoNumber)
        throw new SeedConflict(`${what}: the scope has ${made.pseudoNumber} for its ${token.type} number`);
      check(what);
      this.#others.push({ kind: 'pseudoNumber', id: made.pseudoNumber });
    }
  }

  /** What the seeding made, as it is now: the payments, the plans, the customer and its card, the others. */
  async made({ customerId, method }: ExampleCustomer): Promise<ExampleObject[]> {
    const objects: ExampleObject[] = await this.#seeding.paymentsAndPlans();
    objects.push({ kind: 'customer', id: customerId }, { kind: 'paymentMethod', id: method.id });
    if (method.pseudoNumber !== undefined) objects.push({ kind: 'pseudoNumber', id: method.pseudoNumber });
    objects.push(...this.#others);
    return objects;
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
    if (err instanceof SeedConflict || err instanceof DuplicateKeyError)
      return {
        conflict: `${err instanceof SeedConflict ? err.message : `an id of the examples is taken (${err.constraint})`}; reset the scope first, or give the examples to another merchant`,
      };
    throw err;
  }
}
