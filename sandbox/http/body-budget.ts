// Large request bodies in flight, bounded in bytes. A body is held in memory from the moment it is
// read until its response has gone (its text, the parsed JSON, the documents made from it): 128
// connections each sending 1 MiB at once would hold more than the sandbox's heap. A request with a
// large body takes its announced length from the budget before the body is read, and gives it back
// when its response has ended or its connection has closed; while the budget is spent it waits,
// first come first served, its body left unread in the socket (TCP holds it back), up to the
// request timeout. Small bodies (most requests) take nothing: the connection cap bounds them, and a
// client trickling large bodies never holds them up.
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

/**
 * fastify's preParsing hook for `budget`: a request that announces a large body (its Content-Length
 * over SMALL_BODY_BYTES, or `bodyLimit` when chunked) waits for that many bytes before the body is
 * read. A length over `bodyLimit` takes nothing: the parser refuses it (413) without reading it.
 */
export function bodyBudgetHook(budget: BodyBudget, bodyLimit: number) {
  // Callback style: most requests (every GET, every small body) pass without a promise.
  return <P>(
    request: FastifyRequest,
    reply: FastifyReply,
    payload: P,
    done: (error: null, payload: P) => void,
  ): void => {
    const length = request.headers['content-length'];
    const bytes =
      request.headers['transfer-encoding'] !== undefined
        ? bodyLimit
        : length !== undefined && Number(length) > 0 && Number(length) <= bodyLimit
          ? Number(length)
          : 0;
    if (bytes <= SMALL_BODY_BYTES) {
      done(null, payload);
      return;
    }
    const ticket = budget.take(bytes);
    // The response ended, or the connection closed (even while the request waits): the bytes go back.
    reply.raw.once('close', () => budget.release(ticket));
    void ticket.ready.then(() => done(null, payload));
  };
}
