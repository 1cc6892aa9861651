// The serving part of the mock, one implementation for `npm run mock` (scripts/mock.ts, which mocks
// the repository's bundle, generated/openapi.json) and for the package @payment-service/mock
// (packages/mock/, which mocks the bundle it carries, never bundling at run time): Prism on a
// loopback port of its own with its CORS off, in a process group of its own, and the front
// (mock/front.ts) at the address asked for, which applies the CORS rule and the challenges.
//
// The front listens first, so that a port taken shows at once and `--port 0` has its address before
// Prism starts; it holds each request until Prism answers.
import { readFileSync } from 'node:fs';
import { type AddressInfo, connect } from 'node:net';
import { challengesByOperation } from '../tooling/openapi/challenges.js';
import { type CorsRule, corsRule } from '../tooling/openapi/cors.js';
import type { JsonObject } from '../tooling/openapi/walker.js';
import {
  freePort,
  LOOPBACK,
  type ProcessGroup,
  startProcessGroup,
  WATCHDOG,
} from '../tooling/process/server-process.js';
import { createMockFront } from './front.js';
import { PRISM_CLI, PRISM_MOCK_ARGS } from './prism.js';

export interface ServeMockOptions {
  /** The bundled contract to mock (JSON): Prism reads it from this path. */
  specPath: string;
  /** The bundle's content when the caller has read it already (else read from specPath). */
  document?: JsonObject;
  /** Where the front listens; 0 for a free port. */
  port: number;
  host: string;
  /** Bodies generated from the schemas instead of the documented examples. */
  dynamic?: boolean;
  /** Prism logs invalid requests and errors only, instead of every request. */
  quiet?: boolean;
  /** Origins that may call the operations a browser may call (tooling/openapi/cors.ts), parsed already. */
  corsOrigins?: readonly string[];
  /** Docs console mode's origins, parsed already. */
  consoleOrigins?: readonly string[];
  /** Prism's output passed through (the command) instead of kept in memory (the Node API). */
  inheritOutput?: boolean;
  /** Keeps this process alive for as long as Prism runs (the command, which lives as long as Prism). */
  keepAlive?: boolean;
  /** The front's console lines: refused preflights, a page calling a server's operation. */
  log?: (line: string) => void;
}

export interface ServedMock {
  /** `http://<host>:<port>`, the address the front took (a wildcard host named as 127.0.0.1); no trailing slash. */
  origin: string;
  port: number;
  rule: CorsRule;
  /** Prism's process group. */
  prism: ProcessGroup;
  /** Resolves once Prism answers; rejects when it exits first. */
  ready: Promise<void>;
  /** Closes the front and kills Prism's group (SIGTERM, then SIGKILL). Idempotent. */
  stop(): Promise<void>;
}

/** The front could not listen where it was asked to (the message says where and why). */
export class MockListenError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
    this.name = 'MockListenError';
  }
}

/** A host as the authority of a URL: a wildcard is reached on the loopback, an IPv6 address in brackets. */
export function urlHost(host: string): string {
  return host === '0.0.0.0' || host === '::' ? LOOPBACK : host.includes(':') ? `[${host}]` : host;
}

/**
 * Starts the mock: the front listens (rejects with MockListenError when it cannot), then Prism
 * starts behind it. Resolves once both are under way; `ready` says when Prism answers.
 */
export async function serveMock(options: ServeMockOptions): Promise<ServedMock> {
  const document = options.document ?? (JSON.parse(readFileSync(options.specPath, 'utf8')) as JsonObject);
  // The mock's own headers join the operations': `Prefer` picks a response, `sl-violations` says what is wrong.
  const rule = corsRule(document, [...(options.corsOrigins ?? [])], {
    allowedHeaders: ['Prefer'],
    exposedHeaders: ['sl-violations'],
    consoleOrigins: [...(options.consoleOrigins ?? [])],
  });
  const prismPort = await freePort();
  let markReady!: () => void;
  let markFailed!: (err: Error) => void;
  const ready = new Promise<void>((done, fail) => {
    markReady = done;
    markFailed = fail;
  });
  ready.catch(() => undefined); // the caller decides whether a failed start matters
  const front = createMockFront({
    rule,
    upstream: { host: LOOPBACK, port: prismPort },
    challenges: challengesByOperation(document),
    upstreamReady: ready,
    ...(options.log ? { log: options.log } : {}),
  });
  await new Promise<void>((listening, refused) => {
    front.once('error', (err: NodeJS.ErrnoException) =>
      refused(
        new MockListenError(
          `cannot listen on ${options.host}:${options.port} (${err.code ?? err.message}); choose another port with --port.`,
          err.code,
        ),
      ),
    );
    front.listen(options.port, options.host, () => listening());
  });
  const { port } = front.address() as AddressInfo;
  const closeFront = () =>
    new Promise<void>((closed) => {
      front.close(() => closed());
      front.closeAllConnections();
    });

  const args = [
    '--import',
    WATCHDOG,
    PRISM_CLI,
    'mock',
    options.specPath,
    '--host',
    LOOPBACK,
    '--port',
    String(prismPort),
    '--verboseLevel',
    options.quiet ? 'warn' : 'info',
    ...PRISM_MOCK_ARGS,
  ];
  if (options.dynamic) args.push('--dynamic');
  let prism: ProcessGroup;
  try {
    prism = startProcessGroup(process.execPath, args, {
      name: 'Prism',
      ...(options.inheritOutput ? { inheritOutput: true } : {}),
      ...(options.keepAlive ? { keepAlive: true } : {}),
    });
  } catch (err) {
    await closeFront();
    throw new Error(`could not start Prism: ${(err as Error).message}`);
  }

  let stopping: Promise<void> | undefined;
  const stop = () => (stopping ??= Promise.all([closeFront(), prism.stop()]).then(() => undefined));

  // A TCP connect only, so that the check does not show up in Prism's log.
  const listening = () =>
    new Promise<boolean>((done) => {
      const socket = connect({ host: LOOPBACK, port: prismPort }, () => {
        socket.destroy();
        done(true);
      });
      socket.once('error', () => done(false));
    });
  void (async () => {
    while (!prism.hasExited() && !stopping) {
      if (await listening()) return markReady();
      await new Promise((r) => setTimeout(r, 100));
    }
    const { code, signal } = await prism.exited;
    markFailed(
      new Error(
        stopping
          ? 'the mock was stopped before Prism answered'
          : `Prism exited (code ${code}, signal ${signal}) before listening${options.inheritOutput ? '' : `:\n${prism.output().slice(-5_000)}`}`,
      ),
    );
  })();

  return { origin: `http://${urlHost(options.host)}:${port}`, port, rule, prism, ready, stop };
}
