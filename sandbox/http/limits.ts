// The sandbox's limits on what a client may send and how long it may take: every merchant sharing a
// sandbox is treated as hostile. Each is documented in docs/sandbox.md ("Limits").
import type { FastifyInstance } from 'fastify';
import { capConnectionsPerAddress } from './address-cap.js';
import { BodyBudget, BodyFloor, bodyBudgetHook } from './body-budget.js';
import { closeIdleConnections } from './idle-connections.js';

/** Larger request bodies are answered 413 before they are read to the end. */
export const BODY_LIMIT_BYTES = 1024 * 1024;

/** The hosted page's form (a radio button and a button): larger posts get the page's 413. */
export const HOSTED_FORM_LIMIT_BYTES = 64 * 1024;

/** JSON bodies nested deeper than this (objects and arrays) are refused before they are parsed. */
export const MAX_BODY_DEPTH = 64;

/** A `metadata` object whose JSON is larger than this (UTF-8 bytes) is refused. */
export const METADATA_LIMIT_BYTES = 16 * 1024;

/** The limits of the HTTP server on connections and slow clients. */
export interface ServerLimits {
  /** Time to receive a request's line and headers (Node's `server.headersTimeout`): then 408, closed. */
  headersTimeoutMs: number;
  /** Time to receive a whole request, headers and body (`requestTimeout`): then 408, closed. */
  requestTimeoutMs: number;
  /** A connection with no traffic either way for this long is closed (idle-connections.ts); 0: never. */
  idleTimeoutMs: number;
  /** An idle keep-alive connection is closed after this long (`keepAliveTimeout`). */
  keepAliveTimeoutMs: number;
  /** Connections open at once; further ones are closed as they arrive (`server.maxConnections`). */
  maxConnections: number;
  /** Connections open at once from one client address; further ones from it are closed as they arrive (address-cap.ts); 0: no cap. */
  maxConnectionsPerAddress: number;
  /** The request line and headers, in bytes (Node's `maxHeaderSize`): more is a 431. */
  maxHeaderBytes: number;
  /** Bytes of large request bodies (over 64 KiB) read and not yet answered, all together; more wait (body-budget.ts). */
  bodyBytesInFlight: number;
  /** A request body must arrive at least this fast (bytes a second, on average since its read began) once `bodyGraceMs` has passed: else 408, closed (body-budget.ts); 0: no floor. */
  minBodyBytesPerSecond: number;
  /** How long a body's read may take before `minBodyBytesPerSecond` applies. */
  bodyGraceMs: number;
}

export const DEFAULT_SERVER_LIMITS: Readonly<ServerLimits> = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  idleTimeoutMs: 60_000,
  keepAliveTimeoutMs: 30_000,
  maxConnections: 128,
  // Three quarters of the slots: one client never holds them all (32 stay for the others), and a
  // client's pool of keep-alive connections beside a burst of 60 requests still fits.
  maxConnectionsPerAddress: 96,
  maxHeaderBytes: 16 * 1024,
  bodyBytesInFlight: 1024 * 1024,
  // 64 kbit/s, after 2 s: no client on a working network comes near it; a trickle holds nothing for 30 s.
  minBodyBytesPerSecond: 8 * 1024,
  bodyGraceMs: 2_000,
};

/**
 * Applies the limits that act on the server's connections and bodies (the timeouts are fastify's
 * options): the headers timeout, the caps on connections in all and per address, the idle sweep,
 * the budget of large bodies in flight and the floor rate of every body. `log` hears of an address
 * refused over its cap (once while it holds connections).
 */
export function applyServerLimits(
  app: FastifyInstance,
  limits: ServerLimits,
  bodyLimit: number,
  log?: (line: string) => void,
): void {
  app.server.headersTimeout = limits.headersTimeoutMs;
  app.server.maxConnections = limits.maxConnections;
  capConnectionsPerAddress(app.server, limits.maxConnectionsPerAddress, log);
  closeIdleConnections(app.server, limits.idleTimeoutMs);
  const floor = new BodyFloor(app.server, {
    minBytesPerSecond: limits.minBodyBytesPerSecond,
    graceMs: limits.bodyGraceMs,
  });
  // Bodies in flight, bounded in bytes: past the budget a request waits before its body is read.
  app.addHook('preParsing', bodyBudgetHook(new BodyBudget(limits.bodyBytesInFlight), bodyLimit, floor));
}

/** Whether `raw` (JSON text) nests objects and arrays deeper than `max`: one pass, strings skipped. */
export function nestedDeeperThan(raw: string, max: number): boolean {
  if (raw.length <= max) return false; // each level takes at least one character
  let depth = 0;
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c === 0x22 /* " */) {
      // Skip the string: to its closing quote, past escaped characters.
      for (i++; i < raw.length; i++) {
        const s = raw.charCodeAt(i);
        if (s === 0x5c /* \ */) i++;
        else if (s === 0x22) break;
      }
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > max) return true;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      depth--;
    }
  }
  return false;
}

const NUL = 'the NUL character (U+0000)';
const LONE_SURROGATE = 'a lone UTF-16 surrogate (it is not well-formed Unicode)';

/** What Node 20 has and TypeScript's ES2023 library does not declare (ES2024). */
type WellFormed = { isWellFormed(): boolean };

/**
 * Why PostgreSQL could not store `text` (nor a JSON document holding it), as a 400's message: a NUL
 * character, or a lone UTF-16 surrogate (no UTF-8 encoding exists for it); undefined when it can.
 */
export function unstorable(text: string): string | undefined {
  if (text.includes('\u0000')) return `must not contain ${NUL}`;
  if (!(text as unknown as WellFormed).isWellFormed()) return `must not contain ${LONE_SURROGATE}`;
  return undefined;
}

/** As unstorable, for a key of an object. */
const unstorableKey = (key: string) =>
  unstorable(key) && `must not have a key with ${key.includes('\u0000') ? NUL : LONE_SURROGATE}`;

/** A JSON text may hold unstorable text only in a `\u` escape: most bodies need no closer look. */
const SUSPECT_ESCAPE = /\\u(?:0000|[dD][89a-fA-F])/;

/** A field path as the contract's `errors` maps name them: `amount.currency`, `order.items[0].name`. */
const child = (path: string, key: string | number) =>
  typeof key === 'number' ? `${path}[${key}]` : path ? `${path}.${key}` : key;

export interface FieldProblem {
  field: string;
  message: string;
}

/**
 * The first problem of a parsed JSON body (iteratively, without recursion): text PostgreSQL cannot
 * store (in a value or a key), or a `metadata` object over METADATA_LIMIT_BYTES. `raw` is its text,
 * which says cheaply whether there is anything to look for.
 */
export function bodyProblem(value: unknown, raw: string): FieldProblem | undefined {
  const suspectText = SUSPECT_ESCAPE.test(raw);
  const hasMetadata = raw.includes('"metadata"');
  if (!suspectText && !hasMetadata) return undefined;
  const stack: Array<{ value: unknown; path: string }> = [{ value, path: '' }];
  while (stack.length > 0) {
    const { value: node, path } = stack.pop()!;
    if (typeof node === 'string') {
      const why = suspectText ? unstorable(node) : undefined;
      if (why) return { field: path || '(body)', message: why };
    } else if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) stack.push({ value: node[i], path: child(path, i) });
    } else if (node !== null && typeof node === 'object') {
      for (const key of Object.keys(node)) {
        const at = child(path, key);
        if (suspectText) {
          const why = unstorableKey(key);
          if (why) return { field: path || '(body)', message: why };
        }
        const member = (node as Record<string, unknown>)[key];
        if (key === 'metadata' && hasMetadata && member !== null && typeof member === 'object') {
          const bytes = Buffer.byteLength(JSON.stringify(member));
          if (bytes > METADATA_LIMIT_BYTES)
            return {
              field: at,
              message: `must not be larger than ${METADATA_LIMIT_BYTES} bytes as JSON (it has ${bytes})`,
            };
        }
        stack.push({ value: member, path: at });
      }
    }
  }
  return undefined;
}
