// A DomainContext for unit tests of the sandbox's pure domain (sandbox/domain/): the contract's own
// tables of response and simulation codes, read from the committed bundle generated/openapi.json and
// checked by the domain's codeTables (never copied into a test), a clock that stands still until a
// test moves it, and ids that count per kind (pay_0001, op_0001, …) so that runs repeat exactly.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  codeTables,
  type DomainContext,
  type IdKind,
  type ResponseCode,
  type ResponseCodeName,
  type SimulationCode,
} from '../../sandbox/domain/context.js';
import type { NewPayment } from '../../sandbox/domain/payments.js';
import { pseudoNumberRecord } from '../../sandbox/domain/services.js';
import type { PaymentOperation, PseudoNumberRecord, Schemas, Scope } from '../../sandbox/domain/types.js';

/** The committed bundle of the contract. */
export const BUNDLE_PATH = join(import.meta.dirname, '..', '..', 'generated', 'openapi.json');

export interface ContractCodeTables {
  /** `x-response-codes.codes` of `components.schemas.ResultCode`, by name. */
  responseCodes: Record<string, ResponseCode>;
  /** `x-simulation-codes.codes` of `components.schemas.SimulationMode` (the values its `enum` lists). */
  simulationCodes: (SimulationCode & { simulationMode: Schemas['SimulationMode'] })[];
}

let tables: ContractCodeTables | undefined;

/** The contract's tables as the bundle holds them (read once per test file). */
export function contractCodeTables(): ContractCodeTables {
  if (tables) return tables;
  const document = JSON.parse(readFileSync(BUNDLE_PATH, 'utf8')) as {
    components?: { schemas?: Record<string, Record<string, unknown>> };
  };
  const schemas = document.components?.schemas ?? {};
  const codesOf = (schema: string, extension: string) =>
    (schemas[schema]?.[extension] as { codes?: unknown } | undefined)?.codes;
  const responseCodes = codesOf('ResultCode', 'x-response-codes') as Record<string, ResponseCode> | undefined;
  const simulationCodes = codesOf('SimulationMode', 'x-simulation-codes') as
    | ContractCodeTables['simulationCodes']
    | undefined;
  if (!responseCodes || !simulationCodes)
    throw new Error(`${BUNDLE_PATH} lacks x-response-codes on ResultCode or x-simulation-codes on SimulationMode`);
  tables = { responseCodes, simulationCodes };
  return tables;
}

/** The prefix of the deterministic ids of each kind. */
const PREFIX: Record<IdKind, string> = {
  payment: 'pay',
  operation: 'op',
  session: 'cs',
  link: 'pl',
  intent: 'pi',
  plan: 'pp',
  customer: 'cus',
  paymentMethod: 'pm',
  pseudoNumber: 'pn',
  quote: 'dq',
  trace: 'tr',
  webhook: 'wh',
};

/** Where every test clock starts unless told otherwise. */
export const T0 = '2026-11-24T09:00:00.000Z';

/** A DomainContext whose time a test sets, and whose ids count from 0001 per kind. */
export class TestDomain implements DomainContext {
  now: Date;
  readonly codes: DomainContext['codes'];
  readonly simulations: DomainContext['simulations'];
  private readonly counters = new Map<IdKind, number>();

  constructor(now: Date | string = T0) {
    this.now = new Date(now);
    const { responseCodes, simulationCodes } = contractCodeTables();
    const checked = codeTables(responseCodes, simulationCodes);
    this.codes = checked.codes;
    this.simulations = checked.simulations;
  }

  newId(kind: IdKind): string {
    const n = (this.counters.get(kind) ?? 0) + 1;
    this.counters.set(kind, n);
    return `${PREFIX[kind]}_${String(n).padStart(4, '0')}`;
  }

  /** How many ids of this kind were handed out. */
  issued(kind: IdKind): number {
    return this.counters.get(kind) ?? 0;
  }

  /** Sets the clock. */
  at(time: Date | string): this {
    this.now = new Date(time);
    return this;
  }

  /** Moves the clock forward by `ms`. */
  advance(ms: number): this {
    this.now = new Date(this.now.getTime() + ms);
    return this;
  }

  /** The name of a response code in the contract's table (`22000002` → `WRONG_STATE`); throws for a code the table lacks. */
  nameOf(responseCode: string | { responseCode: string }): string {
    const code = typeof responseCode === 'string' ? responseCode : responseCode.responseCode;
    const entry = Object.entries(contractCodeTables().responseCodes).find(([, c]) => c.responseCode === code);
    if (!entry) throw new Error(`response code ${code} is not in the contract's x-response-codes`);
    return entry[0];
  }

  /** The contract's entry of a response code the domain uses. */
  code(name: ResponseCodeName): ResponseCode {
    return this.codes[name];
  }
}

export const testDomain = (now: Date | string = T0) => new TestDomain(now);

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

export const SCOPE: Scope = { merchantId: 'merchant-a', environment: 'test' };

/** A merchant's return, cancel and webhook URLs; the return URL carries a query of the merchant's own. */
export const MERCHANT_URLS = {
  return: 'https://shop.example/ok?order=7',
  cancel: 'https://shop.example/no',
  webhook: 'https://shop.example/hook',
};

/** A payment request for createPayment: a DIRECT card payment of 100.00 EUR captured MANUALly, unless overridden. */
export function newPayment(overrides: Partial<NewPayment> = {}): NewPayment {
  return {
    scope: SCOPE,
    transId: 'T-1',
    amount: { value: 10_000, currency: 'EUR' },
    captureMethod: { type: 'MANUAL' },
    integrationType: 'DIRECT',
    paymentMethodType: 'CARD',
    details: {},
    ...overrides,
  };
}

/**
 * The pseudo number record pseudoNumberRecord makes of `number` in SCOPE: a CARD with fingerprint `f`
 * unless `details` says otherwise (and the expiry and holder it gives).
 */
export function pseudoNumberOf(
  number: string,
  ctx: DomainContext,
  details: Omit<Partial<Parameters<typeof pseudoNumberRecord>[0]>, 'number'> = {},
): PseudoNumberRecord {
  return pseudoNumberRecord({ scope: SCOPE, fingerprint: 'f', number, type: 'CARD', ...details }, ctx);
}

/** Operation types in order, for assertions on what a decision records. */
export const typesOf = (operations: readonly PaymentOperation[]) => operations.map((o) => o.type);
