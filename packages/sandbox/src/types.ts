// The Node API's types: what a test suite's global setup and its workers hold.

/** A merchant's credentials: HTTP Basic (merchantId, apiKey) and the secret its webhooks are signed with. */
export interface MerchantCredentials {
  merchantId: string;
  apiKey: string;
  webhookSecret: string;
}

/** What a merchant created at run time may be given. */
export interface MerchantOptions {
  /** Its id (letters, digits, `_`, `-`, `.`); default `merchant_` and 16 hexadecimal digits. */
  merchantId?: string;
  /** Give its test root the contract's examples (default false: it starts empty). */
  examples?: boolean;
  /** The notification its webhook URLs receive (default enhanced: signed). */
  webhookKind?: 'basic' | 'enhanced';
  /** Give its test root a data file (after the examples, if both): see DataFile. */
  data?: DataFile;
}

/**
 * A data file (the package's `data.schema.json`): customers with saved cards, payment plans and
 * payments in given states. A string is the path of a YAML or JSON file (relative to the working
 * directory), whose faults the SandboxAdminError names as `file:line:column field: message`; an
 * object is the file's content, whose faults are named by JSON pointer.
 */
export type DataFile = string | object;

/** A merchant's test or live root, each with its own data and clock. */
export interface Scope {
  merchantId: string;
  environment?: 'test' | 'live';
}

/**
 * The admin side of a running sandbox: what a test worker needs. Made from an origin and an admin
 * key (two strings a global setup hands its workers), so it crosses process boundaries.
 */
export interface SandboxAdmin {
  /** Creates a merchant with new credentials, answered once (a taken id rejects with a SandboxAdminError, status 409). */
  createMerchant(options?: MerchantOptions): Promise<MerchantCredentials>;
  /** Deletes a merchant with all its data; its key is refused at once. */
  deleteMerchant(merchantId: string): Promise<void>;
  /**
   * Deletes the data of a scope, of a merchant (both environments), or of every merchant; credentials
   * stay. With `examples: true` the reset test roots (or the environment named) get the contract's
   * examples again, with `data` a data file (after the examples, if both).
   */
  reset(scope?: Scope, seed?: { examples?: boolean; data?: DataFile }): Promise<void>;
  /**
   * Gives a scope a data file, beside the data it holds: an id or transId the scope holds already
   * rejects (409), and nothing is written.
   */
  loadData(scope: Scope, data: DataFile): Promise<void>;
  /** Moves a scope's test clock forward by `seconds` or to the instant `to`, running what falls due. */
  advanceClock(scope: Scope, by: { seconds?: number; to?: string }): Promise<void>;
  /**
   * Saves the data of a scope, of a merchant or of everything (not the merchants or their
   * credentials: payments, idempotency records, clocks, pending webhook deliveries…) in the
   * sandbox's database; its id.
   */
  snapshot(scope?: Scope): Promise<string>;
  /** Puts the snapshot's scopes back as they were; as often as wanted. */
  restore(snapshotId: string): Promise<void>;
}

/** A sandbox this process started: a child process serving on loopback, its data in memory. */
export interface RunningSandbox extends SandboxAdmin {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** The test root: `${origin}/api/v2`. */
  baseUrl: string;
  /** The live root: `${origin}/live/api/v2`. */
  liveBaseUrl: string;
  /** The admin API's key (`Authorization: Bearer <adminKey>` under `${origin}/_sandbox`). */
  adminKey: string;
  /** The demo merchant (with the contract's examples), unless merchants were given. */
  merchants: MerchantCredentials[];
  /** Stops the process and its children, and removes its temporary files. */
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Default 0: a free port. */
  port?: number;
  /** Registered at start instead of the demo merchant. */
  merchants?: MerchantCredentials[];
  /** The admin key (default: a new random one). */
  adminKey?: string;
  /**
   * Every generated id, key and secret a function of this seed (`--seed`): the same requests in the
   * same order get byte-identical answers. The keys are then guessable; the sandbox is on loopback.
   */
  seed?: number;
  /** The instant every clock starts at and stays at until advanced (`--now`, ISO 8601: `2026-03-01T09:00:00Z`). */
  now?: string;
  /** Origins whose pages may call the operations a browser may call (CORS). */
  corsOrigins?: string[];
  /** More command-line options of `payment-sandbox` (e.g. `--webhook-retry-ms 100`). */
  args?: string[];
  /** How long to wait for the sandbox to answer (default 30 000 ms). */
  startTimeoutMs?: number;
}

/** Hears a webhook as its receiver would: the signed POST; a throw counts as a failed delivery (retried). */
export type WebhookListener = (request: Request) => void | Promise<void>;

/** A sandbox in this process (createSandbox): no server, no socket, its data in memory. */
export interface InProcessSandbox extends SandboxAdmin {
  /** The origin its answers and hosted-page links name (default `http://sandbox.payment-service.test`). */
  origin: string;
  /** `${origin}/api/v2`: give it to the client as its baseUrl. */
  baseUrl: string;
  liveBaseUrl: string;
  adminKey: string;
  /** Answers a request as the HTTP sandbox does (routing, validation, auth, rules, idempotency, the clock). */
  fetch(request: Request): Promise<Response>;
  /** Listens to the webhooks it sends; returns the function that stops listening. */
  onWebhook(listener: WebhookListener): () => void;
  /** The customer's choice on a hosted page: a checkout session's, a payment link's or a HOSTED payment's id, or its page URL. */
  hosted: {
    pay(idOrUrl: string): Promise<void>;
    decline(idOrUrl: string): Promise<void>;
    cancel(idOrUrl: string): Promise<void>;
  };
  /** Stops its jobs (clock ticker, deliverer, housekeeping) and frees its data. */
  close(): Promise<void>;
}

export interface InProcessOptions {
  /** Every id and key a function of this seed (its own stream: other sandboxes beside it change nothing). */
  seed?: number;
  /** The instant every clock starts at and stays at until advanced (ISO 8601). */
  now?: string;
  /** The origin it answers as (default `http://sandbox.payment-service.test`). */
  origin?: string;
  /** SQLite's build: native (`better-sqlite3`, when installed: the default then) or WebAssembly (bundled). Node only. */
  sqliteDriver?: 'native' | 'wasm';
  /**
   * In a browser page: where it fetches SQLite's WebAssembly module, `sql-wasm-browser.wasm` of this
   * package (`@payment-service/sandbox/sql-wasm-browser.wasm`); default: beside the module, which a
   * bundler that follows `new URL(…, import.meta.url)` (Vite, webpack) copies for you.
   */
  sqlWasmUrl?: string;
}

/**
 * An admin call the sandbox refused (or could not be reached for): its status and problem detail.
 * For a data file, `findings` holds one line per fault (`data.yaml:12:7 /payments/1/refunded: …`),
 * which the message repeats.
 */
export class SandboxAdminError extends Error {
  constructor(
    message: string,
    readonly status: number | undefined,
    readonly problem?: unknown,
    readonly findings: string[] = [],
  ) {
    super(message);
    this.name = 'SandboxAdminError';
  }
}
