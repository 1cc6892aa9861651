// A checked data file (data-file.ts) made in a merchant's scope, in the caller's transaction, as
// requests would make it (seeding.ts): each customer as a payment naming it makes one, each saved
// card as a credential-on-file payment stores it, each plan by its initial payment and the billings
// the clock made since, each payment along its path (domain/payment-paths.ts) through the use cases.
// First, whether the scope holds an id or transId the file gives: each one taken is a finding at its
// field, and nothing is made.
import { noFieldErrors } from '../contract/field-errors.js';
import { endState, takeStep } from '../domain/payment-paths.js';
import type { Merchant, Scope } from '../domain/types.js';
import { DuplicateKeyError, type Store, type StoreTransaction } from '../store/store.js';
import { updateCustomer } from './customers.js';
import type { CheckedCustomer, CheckedData, CheckedPayment, CheckedPlan, DataErrors } from './data-file.js';
import { customerInfoOf, initialTransId, paymentRequest, paymentTimes, planCustomer, planStart } from './data-trial.js';
import { notFound, type Rejection } from './outcomes.js';
import { changePayment, createPayment, keepCustomer, storeCard } from './payments.js';
import { SeedConflict, type SeededObject, Seeding, type SeedingDeps, SeedRefused } from './seeding.js';

/** Ids or transIds of the file the scope holds already (by pointer into the file): nothing was made. */
export class DataConflict extends Error {
  constructor(readonly errors: DataErrors) {
    super(`the scope holds data the file collides with: ${Object.keys(errors).join(', ')}`);
    this.name = 'DataConflict';
  }
}

/**
 * Makes the checked file's objects in `scope` at `now` (the scope's time), and lists what it made.
 * Throws DataConflict when the scope holds an id or transId the file gives.
 */
export async function loadData(
  deps: SeedingDeps,
  tx: StoreTransaction,
  merchant: Merchant,
  scope: Scope,
  now: Date,
  data: CheckedData,
): Promise<SeededObject[]> {
  const taken = await takenIds(tx, scope, data);
  if (Object.keys(taken).length > 0) throw new DataConflict(taken);
  const loader = new DataLoader(new Seeding(deps, tx, merchant, scope, now));
  const objects: SeededObject[] = [];
  for (const customer of data.customers)
    objects.push(...(await loader.at(customer.at, () => loader.customer(customer))));
  for (const plan of data.plans) await loader.at(plan.at, () => loader.plan(plan));
  for (const payment of data.payments) await loader.at(payment.at, () => loader.payment(payment));
  return [...objects, ...(await loader.seeding.paymentsAndPlans())];
}

/** The ids and transIds the file gives that the scope holds, by pointer. */
async function takenIds(tx: StoreTransaction, scope: Scope, data: CheckedData): Promise<DataErrors> {
  const errors = noFieldErrors();
  const taken = (at: string, what: string) => {
    errors[at] ??= [];
    errors[at].push(`is taken: the scope (${scope.merchantId}, ${scope.environment}) holds ${what} already`);
  };
  for (const { at, given } of data.customers) {
    if (given.id !== undefined && (await tx.customers.get(scope, given.id))) taken(`${at}/id`, `customer ${given.id}`);
    if (await tx.customers.getByMerchantCustomerId(scope, given.merchantCustomerId))
      taken(`${at}/merchantCustomerId`, `a customer ${given.merchantCustomerId}`);
  }
  for (const { at, given } of data.plans) {
    if (given.id !== undefined && (await tx.plans.get(scope, given.id))) taken(`${at}/id`, `payment plan ${given.id}`);
    const transId = initialTransId(given);
    if (transId !== undefined && (await tx.payments.getByTransId(scope, transId)))
      taken(`${at}/${given.transId === undefined ? 'id' : 'transId'}`, `a payment with transId ${transId}`);
  }
  for (const { at, given } of data.payments) {
    if (given.id !== undefined && (await tx.payments.get(scope, given.id))) taken(`${at}/id`, `payment ${given.id}`);
    // Without a transId of its own, a payment's is its id.
    const transId = given.transId ?? given.id;
    if (transId !== undefined && (await tx.payments.getByTransId(scope, transId)))
      taken(`${at}/${given.transId === undefined ? 'id' : 'transId'}`, `a payment with transId ${transId}`);
  }
  return errors;
}

/** The making of one file's objects, each through the use cases. */
class DataLoader {
  /** The pseudo number of each saved card made, by its pointer in the file. */
  readonly #pseudoNumbers = new Map<string, string>();

  constructor(readonly seeding: Seeding) {}

  /** Runs the making of the object at `at`: a taken id it did not foresee (a saved card's) is a DataConflict there. */
  async at<T>(at: string, make: () => Promise<T>): Promise<T> {
    try {
      return await make();
    } catch (err) {
      if (err instanceof SeedConflict || err instanceof DuplicateKeyError)
        throw new DataConflict({ [at]: [`collides with the scope's data (${err.message})`] });
      throw err;
    }
  }

  /** A customer, as a payment naming it makes one (with the file's metadata, as the merchant's update sets it), and its saved cards. */
  async customer({ at, given, cards }: CheckedCustomer): Promise<SeededObject[]> {
    const { seeding } = this;
    const { ctx, check } = seeding.withIds({ customer: [given.id] });
    const source = { customerInfo: customerInfoOf(given), billingAddress: given.billingAddress };
    const customer = (await keepCustomer(ctx, seeding.tx, source))!;
    if (given.metadata)
      seeding.ok(await updateCustomer(ctx, seeding.tx, customer.id, { metadata: given.metadata }), at);
    check(`customer ${at}`);
    const objects: SeededObject[] = [{ kind: 'customer', id: customer.id }];
    for (const card of cards) {
      const { ctx: cardCtx, check: checkCard } = seeding.withIds({ paymentMethod: [card.given.id] });
      const { number: cardNumber, expiryDate, cardHolderName } = card.given;
      const method = await this.at(card.at, async () => {
        const stored = await storeCard(cardCtx, seeding.tx, customer.id, { cardNumber, expiryDate, cardHolderName });
        checkCard(`saved card ${card.at}`);
        return stored;
      });
      if (!method) throw new SeedRefused(`saved card ${card.at} was not stored`);
      this.#pseudoNumbers.set(card.at, method.pseudoNumber);
      objects.push({ kind: 'paymentMethod', id: method.id }, { kind: 'pseudoNumber', id: method.pseudoNumber });
    }
    return objects;
  }

  /** A plan: its initial payment `billed` periods back, then each billing the clock made since. */
  async plan(plan: CheckedPlan): Promise<void> {
    const { seeding } = this;
    const start = planStart(plan.given, seeding.now);
    const planId = plan.given.id ?? seeding.withIds({}, start).ctx.domain.newId('plan');
    const pseudoNumber = this.#pseudoNumberOf(plan.card.at);
    const what = `payment plan ${plan.at}`;
    await seeding.initialPayment(
      plan.given.type,
      planCustomer(plan, { pseudoNumber }),
      {
        transId: initialTransId({ ...plan.given, id: planId })!,
        amount: plan.given.amount,
        ...(plan.given.description !== undefined ? { order: { description: plan.given.description } } : {}),
      },
      { plan: [planId] },
      start,
      what,
    );
    for (let i = 0; i < (plan.given.billed ?? 0); i++) await seeding.billLater(planId);
  }

  /** A payment, created and taken along its path; one that must fail fails where its path says. */
  async payment(payment: CheckedPayment): Promise<void> {
    const { seeding } = this;
    const times = paymentTimes(payment, seeding.now);
    const payId = payment.given.id ?? seeding.withIds({}, times.createdAt).ctx.domain.newId('payment');
    const card = payment.card ? { pseudoNumber: this.#pseudoNumberOf(payment.card.at) } : undefined;
    const request = paymentRequest(payment, payment.given.transId ?? payId, card, times.expirationTime);
    const what = `payment ${payment.at}`;
    const failsOnPurpose = endState(payment.given.state) === 'FAILED';
    const { ctx, check } = seeding.withIds({ payment: [payId] }, times.createdAt);
    let { decision } = seeding.ok(await createPayment(ctx, seeding.tx, request), what);
    check(what);
    for (const step of payment.steps) {
      if (decision.outcome !== 'ok') break;
      const { ctx: stepCtx } = seeding.withIds({}, times.stepsAt);
      decision = seeding.ok(
        await changePayment(stepCtx, seeding.tx, payId, (current) => takeStep(step, current, stepCtx.domain)),
        what,
      );
    }
    if (decision.outcome !== 'ok' && failsOnPurpose) seeding.payments.set(payId, decision.payment);
    else seeding.decided(decision, what);
  }

  #pseudoNumberOf(cardAt: string): string {
    const pseudoNumber = this.#pseudoNumbers.get(cardAt);
    if (pseudoNumber === undefined) throw new Error(`the saved card at ${cardAt} was not made before its use`);
    return pseudoNumber;
  }
}

/**
 * Gives a merchant's scope a checked data file, in one transaction, at `now` (the scope's time):
 * what was made; 404 for an unknown merchant; the ids the scope holds already, and nothing made.
 */
export async function giveData(
  store: Store,
  deps: SeedingDeps,
  scope: Scope,
  now: Date,
  data: CheckedData,
): Promise<{ objects: SeededObject[] } | { dataConflict: DataErrors } | Rejection> {
  const merchant = await store.merchants.get(scope.merchantId);
  if (!merchant) return notFound('Merchant', scope.merchantId);
  try {
    return { objects: await store.transaction((tx) => loadData(deps, tx, merchant, scope, now, data)) };
  } catch (err) {
    if (err instanceof DataConflict) return { dataConflict: err.errors };
    throw err;
  }
}
