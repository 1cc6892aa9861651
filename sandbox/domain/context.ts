// What the state machines need from outside, handed in by the use cases: the time (the scope's test
// clock), new ids, and the contract's tables of response and simulation
// codes (x-response-codes on ResultCode, x-simulation-codes on SimulationMode: the codes and their
// descriptions live in the contract, once; the domain refers to them by name).
import { definedMembers } from '../../tooling/defined.js';

/** Names of the response codes the sandbox sends; each must be in the contract's `x-response-codes`. */
export const RESPONSE_CODE_NAMES = [
  'SUCCESS',
  'DECLINED',
  'DUPLICATE_TRANSACTION',
  'WRONG_STATE',
  'NOTHING_TO_CAPTURE',
  'AMOUNT_EXCEEDS_AVAILABLE',
  'AMOUNT_NOT_POSITIVE',
  'CURRENCY_MISMATCH',
  'CARD_ONLY',
  'ALREADY_CAPTURED',
  'NOT_AWAITING_CONFIRMATION',
  'INTENT_ALREADY_CONFIRMED',
  'INTENT_INCOMPLETE',
  'PLAN_NOT_ACTIVE',
  'PAYMENT_EXPIRED',
] as const;

export type ResponseCodeName = (typeof RESPONSE_CODE_NAMES)[number];

export interface ResponseCode {
  responseCode: string;
  responseDescription: string;
}

/** A `simulationMode` value and the outcome it forces: success (the SUCCESS code) or a decline with its code. */
export interface SimulationCode {
  /** The value merchants send in `simulationMode`. */
  simulationMode: string;
  responseCode: string;
  /** Provider details of the decline, by payment-method result key (`card`, `payPal`, …). */
  providerDetails?: Record<string, Record<string, unknown>>;
}

/** What a `simulationMode` forces. */
export type Simulated =
  | { kind: 'success' }
  | { kind: 'decline'; code: ResponseCode; providerDetails?: Record<string, Record<string, unknown>> };

export type IdKind =
  | 'payment'
  | 'operation'
  | 'session'
  | 'link'
  | 'intent'
  | 'plan'
  | 'customer'
  | 'paymentMethod'
  | 'pseudoNumber'
  | 'quote'
  | 'trace'
  | 'webhook';

export interface DomainContext {
  now: Date;
  newId(kind: IdKind): string;
  codes: Readonly<Record<ResponseCodeName, ResponseCode>>;
  /** By `simulationMode` value, resolved against the response codes. */
  simulations: ReadonlyMap<string, Simulated>;
}

/** The contract's tables, checked: every name the domain uses is there. Throws naming what is missing. */
export function codeTables(
  responseCodes: Record<string, ResponseCode>,
  simulationCodes: SimulationCode[],
): Pick<DomainContext, 'codes' | 'simulations'> {
  const missing = RESPONSE_CODE_NAMES.filter((name) => !responseCodes[name]);
  if (missing.length > 0) throw new Error(`the contract's x-response-codes lack ${missing.join(', ')}`);
  const codes = responseCodes as Record<ResponseCodeName, ResponseCode>;
  const byCode = new Map(Object.values(responseCodes).map((c) => [c.responseCode, c]));
  const simulations = new Map<string, Simulated>();
  for (const s of simulationCodes) {
    const code = byCode.get(s.responseCode);
    if (!code)
      throw new Error(
        `x-simulation-codes: ${s.simulationMode} names response code ${s.responseCode}, which x-response-codes lacks`,
      );
    simulations.set(
      s.simulationMode,
      code.responseCode === codes.SUCCESS.responseCode
        ? { kind: 'success' }
        : // Details only where the contract gives some (the context's unit tests hold it).
          { kind: 'decline', code, ...definedMembers({ providerDetails: s.providerDetails }) },
    );
  }
  return { codes, simulations };
}
