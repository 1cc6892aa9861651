// listAll companions: one per paged list operation of operations.ts, walking Page=1..totalNumberOfPages
// and stopping on an empty page.
import { afterEach, describe, expect, it } from 'vitest';
import { type OperationInfo, operations } from '../../generated/operations.js';
import { createPaymentClient, listAllName } from '../../src/client/index.js';
import { type FakeApi, fakeApi, reply } from '../support/fake-api.js';

let api: FakeApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

const paged = (Object.values(operations) as OperationInfo[]).filter((o) => o.pagination);

describe('listAll companions', () => {
  it('are named after the list method', () => {
    expect(listAllName('list')).toBe('listAll');
    expect(listAllName('listPayments')).toBe('listAllPayments');
    expect(listAllName('search')).toBe('searchAll');
  });

  it('exist for every paged operation and for no other', () => {
    const client = createPaymentClient({ merchantId: 'm', apiKey: 'k' }) as unknown as Record<
      string,
      Record<string, unknown>
    >;
    expect(paged.length).toBeGreaterThan(0);
    for (const info of Object.values(operations) as OperationInfo[]) {
      const [resource, method] = info.sdkMethod.split('.') as [string, string];
      expect(typeof client[resource]![listAllName(method)], info.sdkMethod).toBe(
        info.pagination ? 'function' : 'undefined',
      );
    }
  });

  it('walks Page=1..totalNumberOfPages with the filter on every page', async () => {
    api = await fakeApi((req) => {
      const page = Number(req.query.get('Page'));
      return reply(200, { data: [{ id: `pp_${page}a` }, { id: `pp_${page}b` }], totalNumberOfPages: 3, page });
    });
    const client = createPaymentClient({ merchantId: 'm', apiKey: 'k', baseUrl: api.baseUrl });
    const ids: (string | undefined)[] = [];
    for await (const plan of client.paymentPlans.listAll({ PlanStatus: 'ACTIVE' })) ids.push(plan.id);
    expect(ids).toEqual(['pp_1a', 'pp_1b', 'pp_2a', 'pp_2b', 'pp_3a', 'pp_3b']);
    expect(api.requests.map((r) => r.query.get('Page'))).toEqual(['1', '2', '3']);
    expect(api.requests.every((r) => r.query.get('PlanStatus') === 'ACTIVE')).toBe(true);
  });

  it('stops on an empty page, and fills in path parameters', async () => {
    api = await fakeApi((req) => {
      const page = Number(req.query.get('Page'));
      return reply(200, { data: page < 3 ? [{ payId: `p${page}` }] : [], totalNumberOfPages: 10 });
    });
    const client = createPaymentClient({ merchantId: 'm', apiKey: 'k', baseUrl: api.baseUrl });
    const items = [];
    for await (const payment of client.paymentPlans.listAllPayments('pp_1')) items.push(payment);
    expect(items).toHaveLength(2);
    expect(api.requests.map((r) => `${r.path}?Page=${r.query.get('Page')}`)).toEqual([
      '/payment-plans/pp_1/payments?Page=1',
      '/payment-plans/pp_1/payments?Page=2',
      '/payment-plans/pp_1/payments?Page=3',
    ]);
  });

  it('fetches lazily: breaking out of the loop stops the requests', async () => {
    api = await fakeApi(() => reply(200, { data: [{ id: 'c1' }, { id: 'c2' }], totalNumberOfPages: 50 }));
    const client = createPaymentClient({ merchantId: 'm', apiKey: 'k', baseUrl: api.baseUrl });
    for await (const customer of client.customers.listAll()) {
      if (customer.id === 'c2') break;
    }
    expect(api.requests).toHaveLength(1);
  });
});
