// A past `expirationTime` is refused with a 400 naming the field, wherever the contract's request
// bodies have one (payments, checkout sessions, payment links, payment intents, a payment's update),
// by the time of the merchant's test clock: after an advance, a time still ahead of the wall clock
// may have passed for that merchant, and not for another.
import { describe, expect, it } from 'vitest';
import { deref, isObject, type JsonObject, operations, propertiesOf } from '../../tooling/openapi/walker.js';
import { sandboxContract, sandboxPerSuite, transId } from '../support/sandbox.js';

const HOUR = 3_600_000;

/** The operations whose request body has an `expirationTime`, with the first request example of each. */
function withExpiration(): Array<{ id: string; method: string; path: string; example: JsonObject }> {
  const doc = sandboxContract().document as JsonObject;
  return operations(doc, ['paths']).flatMap((entry) => {
    if (!entry.operation.requestBody) return [];
    const body = deref<JsonObject>(doc, entry.operation.requestBody);
    const media = (body.content as Record<string, JsonObject>)['application/json'];
    if (!media || !propertiesOf(doc, media.schema).has('expirationTime')) return [];
    const first = Object.values(isObject(media.examples) ? media.examples : {})[0];
    const example = first === undefined ? {} : (deref<JsonObject>(doc, first).value as JsonObject);
    return [{ id: String(entry.operation.operationId), method: entry.method.toUpperCase(), path: entry.key, example }];
  });
}

describe('expirationTime', () => {
  const sandbox = sandboxPerSuite(async () => ':memory:');
  const cases = withExpiration();

  it('is in the request bodies of the payment, session, link and intent creations and of the update', () => {
    expect(cases.map((c) => c.id).sort()).toEqual([
      'createCheckoutSession',
      'createPayment',
      'createPaymentIntent',
      'createPaymentLink',
      'updatePayment',
    ]);
  });

  /** The operation's example with a fresh transId and `expirationTime`, sent for `who` (default: the merchant). */
  const send = async (c: (typeof cases)[number], expirationTime: string, who = sandbox().merchant) => {
    let path = c.path;
    if (path.includes('{id}')) {
      const created = await sandbox().call('POST', '/payments', {
        who,
        body: { transId: transId('EXP'), amount: { value: 500, currency: 'EUR' } },
      });
      expect(created.status).toBe(201);
      path = path.replace('{id}', created.body.payId);
    }
    const body = { ...c.example, ...('transId' in c.example ? { transId: transId('EXP') } : {}), expirationTime };
    return sandbox().call(c.method, path, { who, body });
  };

  it.each(cases.map((c) => [c.id, c] as const))(
    '%s: a past one is a 400 naming it, a future one is taken',
    async (_id, c) => {
      const past = await send(c, new Date(Date.now() - 60_000).toISOString());
      expect(past.status).toBe(400);
      expect(Object.keys(past.body.errors)).toEqual(['expirationTime']);
      expect(past.body.errors.expirationTime[0]).toMatch(/^has passed: it must lie in the future \(the time now is /);
      const future = await send(c, new Date(Date.now() + HOUR).toISOString());
      expect(future.status, JSON.stringify(future.body)).toBeLessThan(300);
    },
  );

  it("is read on the merchant's test clock: two days ahead, tomorrow has passed (for it alone)", async () => {
    const scope = { merchantId: sandbox().merchant.merchantId, environment: 'test' as const };
    const { now } = await sandbox().sandbox.clocks.get(scope);
    await sandbox().sandbox.clocks.advance(scope, new Date(now.getTime() + 48 * HOUR));
    const tomorrow = new Date(Date.now() + 24 * HOUR).toISOString();
    const session = cases.find((c) => c.id === 'createCheckoutSession')!;
    const refused = await send(session, tomorrow);
    expect(refused.status).toBe(400);
    // The time the message names is the merchant's clock's, two days ahead of the wall clock.
    const named = /the time now is (\S+)\)$/.exec(refused.body.errors.expirationTime[0])![1]!;
    expect(Date.parse(named) - Date.now()).toBeGreaterThan(47 * HOUR);
    expect((await send(session, tomorrow, sandbox().other)).status).toBe(202);
  });
});
