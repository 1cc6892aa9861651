// The check of a data file before anything is written: first its structure against its schema, then
// the rules the schema cannot say (ids unique, references that resolve, fields that belong to the
// state or plan type, card numbers the sandbox takes), then each payment and plan tried on the pure
// state machines (data-trial.ts) along the way data-load.ts takes them through the use cases, so
// that what the lifecycle refuses (a refund above what was captured) is reported here, at its
// field. Every finding names its field by a JSON pointer into the file. Pure: no store, no clock,
// no file system.
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import addFormatsModule, { type FormatsPlugin } from 'ajv-formats';
import type { ContractTables } from '../contract/contract.js';
import { ajvFinding, jsonPointer, noFieldErrors } from '../contract/field-errors.js';
import { stepsTo, type TargetState, WAITING_TARGETS } from '../domain/payment-paths.js';
import { MULTI_STEP_METHODS } from '../domain/payments.js';
import { cardInputProblem } from '../domain/services.js';
import type {
  CheckedCard,
  CheckedCustomer,
  CheckedData,
  CheckedPayment,
  CheckedPlan,
  DataCustomer,
  DataErrors,
  DataFile,
  DataPayment,
  DataPlan,
} from './data-file.js';
import { type Finding, initialTransId, tryPayment, tryPlan } from './data-trial.js';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: FormatsPlugin }).default ??
  addFormatsModule) as unknown as FormatsPlugin;

/** Checks a data file: the file, its references resolved, or what is wrong with it. */
export type DataChecker = (
  data: unknown,
  context: { tables: ContractTables; now: Date },
) => { data: CheckedData } | { errors: DataErrors };

/** The checker of files of `schema` (generated/admin/data.schema.json, as parsed). */
export function dataChecker(schema: object): DataChecker {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats(ajv);
  const validate = ajv.compile(schema);
  return (data, context) => {
    const findings = new Findings();
    // The rules read a file of the schema's shape: they wait for it.
    if (!validate(data)) {
      for (const e of validate.errors ?? []) findings.add(schemaFinding(e));
      return { errors: findings.errors };
    }
    const checked = new FileRules(findings).check(data as DataFile);
    if (findings.any()) return { errors: findings.errors };
    for (const payment of checked.payments) findings.add(tryPayment(payment, context));
    for (const plan of checked.plans) findings.add(tryPlan(plan, context));
    return findings.any() ? { errors: findings.errors } : { data: checked };
  };
}

/** Messages by pointer, each said once. */
class Findings {
  readonly errors = noFieldErrors();

  add(finding: Finding | undefined): void {
    if (!finding) return;
    this.errors[finding.at] ??= [];
    if (!this.errors[finding.at].includes(finding.message)) this.errors[finding.at].push(finding.message);
  }

  any(): boolean {
    return Object.keys(this.errors).length > 0;
  }
}

/** One of the schema's findings at its field's pointer (a plain RFC 6901 pointer, as the file's others). */
function schemaFinding(e: ErrorObject): Finding {
  const { tokens, kind, message } = ajvFinding(e);
  return {
    at: jsonPointer(tokens),
    message: kind === 'unknown' ? 'is not a field of the data file' : message,
  };
}

/** Which states take which fields: a field the state does not use is a mistake, not ignored. */
const USES: Record<'captured' | 'refunded' | 'declinedWith', ReadonlySet<TargetState>> = {
  captured: new Set(['PARTIALLY_CAPTURED', 'CAPTURED', 'PARTIALLY_REFUNDED', 'REFUNDED']),
  refunded: new Set(['PARTIALLY_REFUNDED', 'REFUNDED']),
  declinedWith: new Set(['DECLINED']),
};

/** The rules of a file of the schema's shape: its objects with their pointers and references resolved, and findings. */
class FileRules {
  #customers: CheckedCustomer[] = [];

  constructor(private readonly findings: Findings) {}

  check(file: DataFile): CheckedData {
    const customers = this.#resolveCustomers(file.customers ?? []);
    const plans = (file.plans ?? []).flatMap((plan, i) => this.#resolvePlan(plan, `/plans/${i}`) ?? []);
    const payments = (file.payments ?? []).map((payment, i) => this.#resolvePayment(payment, `/payments/${i}`));
    this.#unique(
      plans,
      (p) => p.given.id,
      (p) => `${p.at}/id`,
    );
    this.#unique(
      payments,
      (p) => p.given.id,
      (p) => `${p.at}/id`,
    );
    // A payment's transId is its id's when the file gives none; a plan's initial one its id's.
    const transIdAt = (p: { at: string; given: { transId?: string } }) =>
      `${p.at}/${p.given.transId ? 'transId' : 'id'}`;
    this.#unique(
      [
        ...plans.map((p) => ({ transId: initialTransId(p.given), at: transIdAt(p) })),
        ...payments.map((p) => ({ transId: p.given.transId ?? p.given.id, at: transIdAt(p) })),
      ],
      (t) => t.transId,
      (t) => t.at,
    );
    return { customers, plans, payments };
  }

  #add(at: string, message: string): void {
    this.findings.add({ at, message });
  }

  /** Every value of `key` that `items` repeat, at the pointer of its later occurrence. */
  #unique<T>(items: T[], key: (item: T) => string | undefined, at: (item: T) => string, what = 'in the file'): void {
    const seen = new Map<string, string>();
    for (const item of items) {
      const value = key(item);
      if (value === undefined) continue;
      const first = seen.get(value);
      if (first !== undefined) this.#add(at(item), `is the same as ${first}: it must be unique ${what}`);
      else seen.set(value, at(item));
    }
  }

  #resolveCustomers(given: DataCustomer[]): CheckedCustomer[] {
    const customers = given.map((customer, i) => ({
      at: `/customers/${i}`,
      given: customer,
      cards: (customer.cards ?? []).map((card, j) => ({ at: `/customers/${i}/cards/${j}`, given: card })),
    }));
    this.#unique(
      customers,
      (c) => c.given.id,
      (c) => `${c.at}/id`,
    );
    this.#unique(
      customers,
      (c) => c.given.merchantCustomerId,
      (c) => `${c.at}/merchantCustomerId`,
    );
    this.#unique(
      customers.flatMap((c) => c.cards),
      (c) => c.given.id,
      (c) => `${c.at}/id`,
    );
    for (const customer of customers) {
      // A customer saves a card once: a second one of the same number is the first.
      this.#unique(
        customer.cards,
        (c) => c.given.number,
        (c) => `${c.at}/number`,
        "among the customer's cards",
      );
      for (const card of customer.cards) {
        const problem = cardInputProblem({ cardNumber: card.given.number, expiryDate: card.given.expiryDate });
        if (problem)
          this.#add(`${card.at}/${problem.field === 'cardNumber' ? 'number' : problem.field}`, problem.message);
      }
    }
    this.#customers = customers;
    return customers;
  }

  /** The customer a reference names, by id or merchantCustomerId. */
  #customerOf(reference: string, at: string): CheckedCustomer | undefined {
    const found = this.#customers.filter((c) => c.given.id === reference || c.given.merchantCustomerId === reference);
    if (found.length === 1) return found[0];
    this.#add(
      at,
      found.length === 0
        ? `names no customer of the file (by id or merchantCustomerId): ${reference}`
        : `names two customers of the file (one by id, one by merchantCustomerId): ${reference}`,
    );
    return undefined;
  }

  #cardOf(customer: CheckedCustomer, reference: string, at: string): CheckedCard | undefined {
    const card = customer.cards.find((c) => c.given.id === reference);
    if (!card) this.#add(at, `names no saved card of customer ${customer.given.merchantCustomerId}: ${reference}`);
    return card;
  }

  #resolvePlan(given: DataPlan, at: string): CheckedPlan | undefined {
    const scheduled = given.type === 'RECURRING' || given.type === 'INSTALLMENTS';
    if (given.type === 'INSTALLMENTS' && given.totalInstallments === undefined)
      this.#add(`${at}/totalInstallments`, 'is required for INSTALLMENTS');
    if (given.type !== 'INSTALLMENTS' && given.totalInstallments !== undefined)
      this.#add(`${at}/totalInstallments`, `applies to INSTALLMENTS only, not ${given.type}`);
    for (const field of ['frequency', 'billed'] as const)
      if (!scheduled && given[field] !== undefined)
        this.#add(
          `${at}/${field}`,
          `applies to RECURRING and INSTALLMENTS only (the clock bills them), not ${given.type}`,
        );
    const customer = this.#customerOf(given.customer, `${at}/customer`);
    if (!customer) return undefined;
    if (given.card !== undefined) {
      const card = this.#cardOf(customer, given.card, `${at}/card`);
      return card && { at, given, customer, card };
    }
    const [card] = customer.cards;
    if (!card)
      this.#add(
        `${at}/customer`,
        `has no saved card for the plan to bill: give ${customer.given.merchantCustomerId} one under cards`,
      );
    return card && { at, given, customer, card };
  }

  #resolvePayment(given: DataPayment, at: string): CheckedPayment {
    const method = given.method ?? (WAITING_TARGETS.has(given.state) ? 'KLARNA' : 'CARD');
    for (const [field, states] of Object.entries(USES) as Array<[keyof typeof USES, ReadonlySet<TargetState>]>)
      if (given[field] !== undefined && !states.has(given.state))
        this.#add(`${at}/${field}`, `applies to ${[...states].join(', ')} only, not ${given.state}`);
    if (WAITING_TARGETS.has(given.state) && !MULTI_STEP_METHODS.has(method))
      this.#add(
        `${at}/method`,
        `${given.state} needs a method that waits for its confirmation (${[...MULTI_STEP_METHODS].join(', ')}), not ${method}`,
      );
    const customer = given.customer === undefined ? undefined : this.#customerOf(given.customer, `${at}/customer`);
    let card: CheckedCard | undefined;
    if (given.card !== undefined) {
      if (given.customer === undefined) this.#add(`${at}/card`, 'needs customer: a saved card belongs to a customer');
      else if (customer) card = this.#cardOf(customer, given.card, `${at}/card`);
      if (method !== 'CARD') this.#add(`${at}/card`, `pays CARD payments only, and method is ${method}`);
    }
    const { state: target, amount, captured, refunded } = given;
    const steps = stepsTo({ target, amount: amount.value, method, captured, refunded });
    return { at, given, customer, card, method, steps };
  }
}
