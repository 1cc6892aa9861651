// Large request bodies in flight, bounded in bytes. A body is held in memory from the moment it is
// read until its response has gone (its text, the parsed JSON, the documents made from it): 128
// connections each sending 1 MiB at once would hold more than the sandbox's heap. A request with a
// large body takes its announced length from the budget before the body is read, and gives it back
// when its response has ended or its connection has closed; while the budget is spent it waits,
// first come first served, its body left unread in the socket (TCP holds it back), up to the
// request timeout. Small bodies (most requests) take nothing: the connection cap bounds them, and a
// client trickling large bodies never holds them up.
//
// A body must also keep arriving: once it has been read for a grace period, one that came slower
// than a floor rate (on average since it began to be read) is cut off as the request timeout would
// cut it, with the same 408, long before that timeout, and the bytes it held go back. Its clock
// starts when its read starts: the time it waited for the budget, its body unread in the socket, is
// not the client's.
import type { IncomingMessage } from 'node:http';
import type { Server } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** A request's claim on the budget. */
export class BodyTicket {
  state: 'waiting' | 'granted' | 'released' = 'waiting';
  readonly ready: Promise<void>;
  grant!: () => void;

  constructor(readonly bytes: number) {
    this.ready = new Promise<void>((resolve) => {
      this.grant = resolve;
    });
  }
}

export class BodyBudget {
  #free: number;
  readonly #queue: BodyTicket[] = [];

  constructor(readonly capacity: number) {
    this.#free = capacity;
  }

  /** A ticket for `bytes` (at most the whole budget), granted at once or when enough is given back. */
  take(bytes: number): BodyTicket {
    const ticket = new BodyTicket(Math.min(bytes, this.capacity));
    this.#queue.push(ticket);
    this.#grant();
    return ticket;
  }

  /** Gives the ticket's bytes back, or withdraws it from the queue. Idempotent. */
  release(ticket: BodyTicket): void {
    if (ticket.state === 'granted') this.#free += ticket.bytes;
    else if (ticket.state === 'waiting') this.#queue.splice(this.#queue.indexOf(ticket), 1);
    ticket.state = 'released';
    this.#grant();
  }

  /** Bytes not taken. */
  get free(): number {
    return this.#free;
  }

  /** Requests waiting for bytes. */
  get waiting(): number {
    return this.#queue.length;
  }

  #grant(): void {
    while (this.#queue.length > 0 && this.#queue[0]!.bytes <= this.#free) {
      const ticket = this.#queue.shift()!;
      this.#free -= ticket.bytes;
      ticket.state = 'granted';
      ticket.grant();
    }
  }
}

/** A body up to this size takes nothing from the budget (128 connections × 64 KiB = 8 MiB at most). */
export const SMALL_BODY_BYTES = 64 * 1024;

/** The floor a body's rate is held to: bytes a second on average, once it has been read for `graceMs`. */
export interface BodyRate {
  minBytesPerSecond: number;
  graceMs: number;
}

interface Reading {
  request: IncomingMessage;
  /** When its read started, and the socket's bytes read then. */
  since: number;
  bytesAtStart: number;
}

/** How often the bodies being read are looked at, for a grace of `graceMs`: a slow one is cut at most a quarter of it late. */
export const floorIntervalMs = (graceMs: number) => Math.max(50, Math.min(graceMs / 4, 1_000));

/**
 * The bodies being read on `server`, each held to `rate`: one that has fallen below it after its
 * grace is cut off as the request timeout cuts a request (Node's `clientError` with
 * ERR_HTTP_REQUEST_TIMEOUT: a 408 in the addressed operation's shape, the connection closed). The
 * bytes counted are the connection's: a client cannot make them up with anything but its body.
 */
export class BodyFloor {
  readonly #reading = new Set<Reading>();

  constructor(
    private readonly server: Server,
    private readonly rate: BodyRate,
  ) {
    const timer = setInterval(() => this.sweep(Date.now()), floorIntervalMs(rate.graceMs));
    timer.unref();
    server.once('close', () => clearInterval(timer));
  }

  /** Bodies being read and held to the floor. */
  get reading(): number {
    return this.#reading.size;
  }

  /** Holds the body of `request`, whose read starts now, to the floor (nothing to do once it has all arrived). */
  track(request: IncomingMessage): void {
    if (request.complete || this.rate.minBytesPerSecond <= 0) return;
    // An injected request (fastify's app.inject) has its whole body already and no
    // connection whose bytes could be counted or cut.
    if (typeof request.socket?.bytesRead !== 'number') return;
    this.#reading.add({ request, since: Date.now(), bytesAtStart: request.socket.bytesRead });
  }

  /** Cuts off the bodies below the floor at `now`; forgets those that have arrived or whose connection has gone. */
  sweep(now: number): void {
    for (const reading of this.#reading) {
      const { request } = reading;
      if (request.complete || request.socket.destroyed) {
        this.#reading.delete(reading);
        continue;
      }
      const elapsed = now - reading.since;
      if (elapsed < this.rate.graceMs) continue;
      const received = request.socket.bytesRead - reading.bytesAtStart;
      if (received >= (this.rate.minBytesPerSecond * elapsed) / 1000) continue;
      this.#reading.delete(reading);
      const timeout = Object.assign(
        new Error(`the body arrived at under ${this.rate.minBytesPerSecond} bytes a second`),
        { code: 'ERR_HTTP_REQUEST_TIMEOUT' },
      );
      if (!this.server.emit('clientError', timeout, request.socket)) request.socket.destroy(timeout);
    }
  }
}

/**
 * fastify's preParsing hook for `budget`: a request that announces a large body (its Content-Length
 * over SMALL_BODY_BYTES, or `bodyLimit` when chunked) waits for that many bytes before the body is
 * read. A length over `bodyLimit` takes nothing: the parser refuses it (413) without reading it.
 * Every body, large or small, is held to `floor` from when its read starts.
 */
export function bodyBudgetHook(budget: BodyBudget, bodyLimit: number, floor?: BodyFloor) {
  // Callback style: most requests (every GET, every small body) pass without a promise.
  return <P>(
    request: FastifyRequest,
    reply: FastifyReply,
    payload: P,
    done: (error: null, payload: P) => void,
  ): void => {
    const length = request.headers['content-length'];
    const chunked = request.headers['transfer-encoding'] !== undefined;
    const bytes = chunked
      ? bodyLimit
      : length !== undefined && Number(length) > 0 && Number(length) <= bodyLimit
        ? Number(length)
        : 0;
    if (bytes <= SMALL_BODY_BYTES) {
      if (chunked || bytes > 0) floor?.track(request.raw);
      done(null, payload);
      return;
    }
    const ticket = budget.take(bytes);
    // The response ended, or the connection closed (even while the request waits): the bytes go back.
    reply.raw.once('close', () => budget.release(ticket));
    void ticket.ready.then(() => {
      floor?.track(request.raw);
      done(null, payload);
    });
  };
}
