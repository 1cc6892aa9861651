// @payment-service/mock as a library: `startMock()` starts the mock `payment-mock` runs (Prism behind
// the front that puts right the replay marker, CORS and the challenges: mock/serve.ts) in this
// process's control, on the contract this package carries, and resolves once it answers.

import { serveMock } from '../../../mock/serve.js';
import { parseOrigins } from '../../../tooling/openapi/cors.js';
import { CONTRACT_PATH } from './contract.js';

export interface StartMockOptions {
  /** Where the mock listens (default 4010); 0 for a free port, which `origin` names. */
  port?: number;
  /** The interface it listens on (default 127.0.0.1; 0.0.0.0 to reach it from other machines). */
  host?: string;
  /** Response bodies generated from the schemas instead of the documented examples (default false). */
  dynamic?: boolean;
  /**
   * Origins (`scheme://host[:port]`) whose pages may call, from a browser, the operations a browser
   * may call (those that take a bearer token alone: confirmPaymentIntent). Default: none, CORS closed.
   * The environment variable the command reads is not read here.
   */
  corsOrigins?: string[];
  /** Docs console mode, for a developer's machine: origins whose pages may call every operation. Default: none. */
  docsConsoleOrigins?: string[];
  /** The mock's console lines: refused preflights, a page calling an operation meant for servers. Default: none. */
  log?: (line: string) => void;
}

export interface RunningMock {
  /** `http://<host>:<port>`, no trailing slash. */
  origin: string;
  /**
   * Where the contract's paths hang from: `${baseUrl}/payments`. The origin itself: Prism serves the
   * paths from the root, without the `/api/v2` of the contract's server URLs.
   */
  baseUrl: string;
  /** Stops the mock: closes its address and kills Prism's process group. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Starts the mock and resolves once it answers. Rejects on an origin that is not one, a port that is
 * taken, or a Prism that exits before it listens. Prism runs as a child process in a process group
 * of its own, which `stop()` kills, and which never outlives this process.
 */
export async function startMock(options: StartMockOptions = {}): Promise<RunningMock> {
  const mock = await serveMock({
    specPath: CONTRACT_PATH,
    port: options.port ?? 4010,
    host: options.host ?? '127.0.0.1',
    dynamic: options.dynamic ?? false,
    quiet: true,
    corsOrigins: parseOrigins(options.corsOrigins ?? []),
    consoleOrigins: parseOrigins(options.docsConsoleOrigins ?? []),
    ...(options.log ? { log: options.log } : {}),
  });
  try {
    await mock.ready;
  } catch (err) {
    await mock.stop();
    throw err;
  }
  return { origin: mock.origin, baseUrl: mock.origin, stop: mock.stop };
}
