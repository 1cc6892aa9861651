// The public shapes of a verification run: what `verify()` takes and what it reports. Plain types
// with no imports, so that the package's declarations stand alone.

/** The checks `payment-verify` knows, in the order it runs them. */
export const CHECK_NAMES = [
  'status-declared',
  'content-type',
  'response-schema',
  'required-headers',
  'not-a-server-error',
  'positive-acceptance',
  'negative-rejection',
  'auth',
  'isolation',
  'idempotency',
  'lifecycle',
  'webhooks',
  'workflows',
] as const;

export type CheckName = (typeof CHECK_NAMES)[number];

/** The checks that judge every response, whichever check sent the request. */
export const RESPONSE_CHECKS: readonly CheckName[] = [
  'status-declared',
  'content-type',
  'response-schema',
  'required-headers',
  'not-a-server-error',
];

export interface VerifyOptions {
  /** The root of the API under test, e.g. `http://127.0.0.1:4020/api/v2`. */
  baseUrl: string;
  merchantId: string;
  apiKey: string;
  /** A second merchant, for the isolation checks (skipped without it). */
  secondMerchantId?: string;
  secondApiKey?: string;
  /** The first merchant's webhook secret, to check signatures (the signature cases are skipped without it). */
  webhookSecret?: string;
  /** The public URL of the verifier's webhook receiver (default `http://127.0.0.1:<webhookPort>/webhooks`). */
  webhookUrl?: string;
  /** Where the receiver listens (default: a free port on 127.0.0.1). */
  webhookPort?: number;
  /** Drive the hosted page's form (a server with the sandbox's page), so that HOSTED results send webhooks. */
  hosted?: boolean;
  /** The live root: a test token is tried there and must be refused. */
  liveBaseUrl?: string;
  /** A base URL equal to the contract's live server is refused without it; with it only reads run. */
  allowLive?: boolean;
  /** Only these checks (default: all). */
  checks?: readonly CheckName[];
  excludeChecks?: readonly CheckName[];
  /** Seeds the random part of what a run makes up (its idempotency keys; default: the run's start time). */
  seed?: number;
  /** At most this many requests (default 2000). */
  maxRequests?: number;
  /** At most this many requests per second (default: unlimited). */
  rate?: number;
  /** Per-request timeout in seconds (default 15). */
  timeoutSeconds?: number;
  /** A line per check while it runs. */
  onProgress?: (line: string) => void;
}

export type Outcome = 'passed' | 'failed' | 'skipped';

/** One judgement: a check applied to one response, exchange or sequence of an operation. */
export interface CheckResult {
  check: CheckName;
  /** The operation judged (a webhook's name for webhook checks; `-` when none applies). */
  operationId: string;
  outcome: Outcome;
  /** What the case was (`createPayment without credentials`). */
  title: string;
  expected: string;
  actual: string;
  /** A command that reproduces the request, credentials masked (absent for skipped checks). */
  curl?: string;
}

export interface CheckSummary {
  check: CheckName;
  passed: number;
  failed: number;
  skipped: number;
  /** Why the check did not run, when it was skipped as a whole. */
  skippedBecause?: string;
}

export interface Coverage {
  /** `operationId status` pairs the run saw. */
  exercised: string[];
  /** The pairs a well-behaved client can provoke (2xx, 400, 401, 404, 409, 413, 415, 422 where declared). */
  reachable: string[];
  /** Reachable pairs the run did not see. */
  missing: string[];
  /** exercised ∩ reachable, as a share of reachable (0–100, one decimal). */
  percent: number;
  /** Operations of the contract the run called at least once, out of all. */
  operations: { called: number; total: number; notCalled: string[] };
}

export interface VerifySummary {
  runId: string;
  baseUrl: string;
  startedAt: string;
  durationMs: number;
  requests: number;
  passed: number;
  failed: number;
  skipped: number;
  checks: CheckSummary[];
  /** 0 every check that ran passed; 1 one failed; 2 no check could run. */
  exitCode: 0 | 1 | 2;
}

export interface VerifyReport {
  summary: VerifySummary;
  results: CheckResult[];
  coverage: Coverage;
}

/** Bad arguments or a server that cannot be verified at all: the command exits 2 with this message. */
export class VerifyUsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'VerifyUsageError';
  }
}
