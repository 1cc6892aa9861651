// The data file checker (sandbox/app/data-file.ts), pure: the example file accepted, and each kind of fault named at its field by JSON pointer:
// the schema's, the rules' (ids, references, fields of another state or plan type, card numbers) and
// the lifecycle's, found by trying each payment and plan on the domain's state machines. Then the
// client's side (sandbox/cli/data-file.ts): a file's faults at their lines.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { REPO_ROOT } from '../../generator/support/paths.js';
import { dataChecker } from '../../sandbox/app/data-check.js';
import { DataFileError, readDataFile } from '../../sandbox/cli/data-file.js';
import { dataFileFindings } from '../../sandbox/cli/data-findings.js';
import { codeTables } from '../../sandbox/domain/context.js';
import { TARGET_STATES } from '../../sandbox/domain/payment-paths.js';
import { contractCodeTables, T0 } from '../support/domain.js';

const SCHEMA_PATH = join(REPO_ROOT, 'generated', 'admin', 'data.schema.json');
const schema = JSON.parse(readFileSync(SCHEMA_PATH, 'utf8')) as { $defs: Record<string, unknown> };
const check = dataChecker(schema);
const { responseCodes, simulationCodes } = contractCodeTables();
const context = { tables: codeTables(responseCodes, simulationCodes), now: new Date(T0) };
/** The findings of a file, by pointer (none: an empty object). */
const findings = (data: unknown) => {
  const checked = check(data, context);
  return 'errors' in checked ? checked.errors : {};
};

const EUR = (value: number) => ({ value, currency: 'EUR' });
const customer = { id: 'cus_a', merchantCustomerId: 'A-1', cards: [{ id: 'pm_a', number: '4242424242424242' }] };

describe('the data file schema', () => {
  it('accepts the example file (sandbox/admin/examples/data.yaml), with a payment in every state', () => {
    const example = parseYaml(readFileSync(join(REPO_ROOT, 'sandbox', 'admin', 'examples', 'data.yaml'), 'utf8'));
    const checked = check(example, context);
    expect(checked).not.toHaveProperty('errors');
    const states = 'data' in checked ? checked.data.payments.map((p) => p.given.state).sort() : [];
    const stateEnum = (schema.$defs.payment as { properties: { state: { enum: string[] } } }).properties.state.enum;
    expect(states).toEqual([...stateEnum].sort());
    // the schema's states are the lifecycle's paths (sandbox/domain/payment-paths.ts), no more, no fewer
    expect(stateEnum).toEqual([...TARGET_STATES]);
  });
});

describe('the data file checker', () => {
  it("names the schema's faults by pointer: a missing field, an unknown one, a value out of range", () => {
    expect(
      findings({
        customers: [{ firstName: 'Ann', nickname: 'A' }],
        payments: [{ amount: { value: -1, currency: 'EUR' }, state: 'SETTLED' }],
      }),
    ).toEqual({
      '/customers/0/merchantCustomerId': ['is required'],
      '/customers/0/nickname': ['is not a field of the data file'],
      '/payments/0/amount/value': ['must be >= 0'],
      '/payments/0/state': [expect.stringMatching(/^must be one of AUTHORIZED, PARTIALLY_CAPTURED, .*EXPIRED$/)],
    });
    expect(findings([])).toEqual({ '': ['must be object'] });
  });

  it('names ids given twice, references that do not resolve, and card numbers the sandbox does not take', () => {
    expect(
      findings({
        customers: [
          customer,
          {
            id: 'cus_a',
            merchantCustomerId: 'A-1',
            cards: [{ number: '4242424242424241' }, { number: '4242424242424241' }],
          },
        ],
        plans: [
          { type: 'RECURRING', customer: 'nobody', amount: EUR(100) },
          { type: 'RECURRING', customer: 'A-2', amount: EUR(100) },
        ],
        payments: [
          { transId: 'T-1', amount: EUR(100), state: 'AUTHORIZED', card: 'pm_a' },
          { transId: 'T-1', amount: EUR(100), state: 'AUTHORIZED', customer: 'cus_a', card: 'pm_z' },
        ],
      }),
    ).toMatchObject({
      '/customers/1/id': ['is the same as /customers/0/id: it must be unique in the file'],
      '/customers/1/merchantCustomerId': [
        'is the same as /customers/0/merchantCustomerId: it must be unique in the file',
      ],
      '/customers/1/cards/0/number': ['fails the Luhn check'],
      '/customers/1/cards/1/number': [
        "is the same as /customers/1/cards/0/number: it must be unique among the customer's cards",
        'fails the Luhn check',
      ],
      '/plans/0/customer': ['names no customer of the file (by id or merchantCustomerId): nobody'],
      '/payments/0/card': ['needs customer: a saved card belongs to a customer'],
      '/payments/1/transId': ['is the same as /payments/0/transId: it must be unique in the file'],
    });
    expect(
      findings({
        customers: [customer, { merchantCustomerId: 'B-1' }],
        plans: [{ type: 'RECURRING', customer: 'B-1', amount: EUR(100) }],
        payments: [{ amount: EUR(100), state: 'AUTHORIZED', customer: 'A-1', card: 'pm_b' }],
      }),
    ).toEqual({
      '/plans/0/customer': ['has no saved card for the plan to bill: give B-1 one under cards'],
      '/payments/0/card': ['names no saved card of customer A-1: pm_b'],
    });
  });

  it('names a field of another state or plan type, and a method the state cannot have', () => {
    expect(
      findings({
        customers: [customer],
        plans: [
          { type: 'INSTALLMENTS', customer: 'cus_a', amount: EUR(100) },
          { type: 'UNSCHEDULED_MIT', customer: 'cus_a', amount: EUR(100), billed: 1, totalInstallments: 3 },
        ],
        payments: [
          { amount: EUR(100), state: 'AUTHORIZED', refunded: 50, declinedWith: 'DECLINED' },
          { amount: EUR(100), state: 'PENDING_CONFIRMATION', method: 'CARD' },
          { amount: EUR(100), state: 'CAPTURED', method: 'KLARNA', customer: 'cus_a', card: 'pm_a' },
        ],
      }),
    ).toEqual({
      '/plans/0/totalInstallments': ['is required for INSTALLMENTS'],
      '/plans/1/totalInstallments': ['applies to INSTALLMENTS only, not UNSCHEDULED_MIT'],
      '/plans/1/billed': ['applies to RECURRING and INSTALLMENTS only (the clock bills them), not UNSCHEDULED_MIT'],
      '/payments/0/refunded': ['applies to PARTIALLY_REFUNDED, REFUNDED only, not AUTHORIZED'],
      '/payments/0/declinedWith': ['applies to DECLINED only, not AUTHORIZED'],
      '/payments/1/method': [
        'PENDING_CONFIRMATION needs a method that waits for its confirmation (BANCONTACT, BOLETO, IDEAL, KLARNA, PAYPAL, PAYU), not CARD',
      ],
      '/payments/2/card': ['pays CARD payments only, and method is KLARNA'],
    });
  });

  it("names what the lifecycle refuses, at the field that asked for it, with the domain's reason", () => {
    expect(
      findings({
        customers: [customer],
        plans: [{ type: 'INSTALLMENTS', customer: 'cus_a', amount: EUR(100), totalInstallments: 2, billed: 2 }],
        payments: [
          { amount: EUR(2500), state: 'REFUNDED', refunded: 3000 },
          { amount: EUR(2500), state: 'CAPTURED', captured: 1000 },
          { amount: EUR(2500), state: 'PARTIALLY_CAPTURED', captured: 2500 },
          { amount: EUR(2500), state: 'PARTIALLY_REFUNDED', captured: 3000 },
          { amount: EUR(2500), state: 'DECLINED', declinedWith: 'SUCCESS' },
          { amount: EUR(0), state: 'CAPTURED' },
        ],
      }),
    ).toEqual({
      '/plans/0/billed': ['billing 2 is refused: The payment plan is not active (the plan is COMPLETED after 1)'],
      '/payments/0/refunded': [
        'The amount exceeds what is available for this operation (a refund of 3000 of 2500 EUR)',
      ],
      '/payments/1/captured': ['leaves the payment PARTIALLY_CAPTURED, not CAPTURED'],
      '/payments/2/captured': ['leaves the payment CAPTURED, not PARTIALLY_CAPTURED'],
      '/payments/3/captured': [
        'The amount exceeds what is available for this operation (a capture of 3000 of 2500 EUR)',
      ],
      '/payments/4/declinedWith': ['leaves the payment AUTHORIZED, not DECLINED'],
      '/payments/5/amount': [expect.stringMatching(/\(a capture of 0 of 0 EUR\)$/)],
    });
  });

  it('takes each state on the way the lifecycle goes there: a multi-step method is confirmed first', () => {
    const checked = check(
      {
        payments: [
          { amount: EUR(1000), state: 'PARTIALLY_REFUNDED', method: 'PAYPAL', captured: 600 },
          { amount: EUR(1000), state: 'EXPIRED' },
          { amount: EUR(1000), state: 'DECLINED', method: 'KLARNA' },
        ],
      },
      context,
    );
    expect('data' in checked && checked.data.payments.map((p) => [p.method, p.steps])).toEqual([
      [
        'PAYPAL',
        [
          { kind: 'confirm' },
          { kind: 'capture', value: 600, from: 'captured' },
          { kind: 'refund', value: 300, from: 'captured' },
        ],
      ],
      ['KLARNA', [{ kind: 'expire' }]],
      ['KLARNA', [{ kind: 'confirm' }]],
    ]);
  });
});

describe("a data file's faults at their lines (the client's side)", () => {
  const folder = mkdtempSync(join(tmpdir(), 'data-file-unit-'));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));
  const file = (name: string, text: string) => {
    const path = join(folder, name);
    writeFileSync(path, text);
    return path;
  };

  it('maps pointers to the line and column of their field (a missing one to its object), and keeps other fields as named', () => {
    const path = file(
      'a.yaml',
      'payments:\n  - amount: {value: 1, currency: EUR}\n    state: CAPTURED\n    captured: 5\n',
    );
    const source = readDataFile(path);
    expect(source.data).toEqual({
      payments: [{ amount: { value: 1, currency: 'EUR' }, state: 'CAPTURED', captured: 5 }],
    });
    expect(
      dataFileFindings(
        {
          '/data/payments/0/captured': ['too much'],
          '/data/payments/0/amount/currency': ['not that one'],
          '/data/payments/0/transId': ['is required'],
          '/data': ['is odd'],
          environment: ['must be test or live'],
        },
        source,
      ),
    ).toEqual([
      `${path}:4:5 /payments/0/captured: too much`,
      `${path}:2:24 /payments/0/amount/currency: not that one`,
      `${path}:2:5 /payments/0/transId: is required`,
      `${path}:1:1 (the file): is odd`,
      'environment: must be test or live',
    ]);
    expect(dataFileFindings({ '/data/payments/0/captured': ['too much'] }, undefined)).toEqual([
      '/payments/0/captured: too much',
    ]);
    expect(dataFileFindings({ seconds: ['must be >= 1'] }, source)).toBeUndefined();
  });

  it('refuses a file that is not YAML, at the line of the fault, and one that cannot be read', () => {
    const path = file('b.json', '{\n  "payments": [\n    { "state": "CAPTURED", }\n  ]\n');
    expect(() => readDataFile(path)).toThrow(DataFileError);
    expect(() => readDataFile(path)).toThrow(new RegExp(`^${path.replaceAll('.', '\\.')}:\\d+:\\d+ `));
    expect(() => readDataFile(join(folder, 'none.yaml'))).toThrow(/cannot read the data file/);
  });
});
