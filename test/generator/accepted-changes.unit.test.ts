// The accepted-changes file (generator/review/accepted.ts): its shape, checked with the file, line
// and field in every message, and the committed file itself.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ACCEPTED_FILE,
  AcceptedChangesError,
  isExpired,
  loadAcceptedChanges,
  parseAcceptedChanges,
} from '../../generator/review/accepted.js';
import { REPO_ROOT } from '../../generator/support/paths.js';

const parse = (text: string) => parseAcceptedChanges(text, 'accepted.yaml');
const error = (text: string): string => {
  try {
    parse(text);
  } catch (err) {
    expect(err).toBeInstanceOf(AcceptedChangesError);
    return (err as Error).message;
  }
  throw new Error('no error');
};

const GOOD = [
  '# approvals',
  'accepted:',
  '  - id: enum-values-added@#/components/schemas/Channel/enum',
  '    reason: KIOSK is announced; clients fall back on unknown channels.',
  '    approvedBy: Jane Doe',
  '    expires: 2026-12-31',
  '  - id: operation-removed@#/paths/~1payments~1{id}~1captures/post',
  '    reason: Never offered to merchants.',
  "    approvedBy: '@api-owners'",
  '',
].join('\n');

describe('accepted-changes file', () => {
  it('reads entries with the line of their id', () => {
    expect(parse(GOOD)).toEqual([
      {
        id: 'enum-values-added@#/components/schemas/Channel/enum',
        reason: 'KIOSK is announced; clients fall back on unknown channels.',
        approvedBy: 'Jane Doe',
        expires: '2026-12-31',
        file: 'accepted.yaml',
        line: 3,
      },
      {
        id: 'operation-removed@#/paths/~1payments~1{id}~1captures/post',
        reason: 'Never offered to merchants.',
        approvedBy: '@api-owners',
        file: 'accepted.yaml',
        line: 7,
      },
    ]);
    expect(parse('accepted: []\n')).toEqual([]);
    expect(parse('# nothing yet\n')).toEqual([]);
  });

  it('names the file, the line and the field of each mistake', () => {
    const without = (field: string) =>
      GOOD.split('\n')
        .filter((l) => !l.trimStart().replace(/^- /, '').startsWith(`${field}:`))
        .join('\n');
    expect(error(without('approvedBy'))).toBe('accepted.yaml:3: entry 1: field `approvedBy` is missing');
    expect(error(GOOD.replace('    reason: Never offered to merchants.', '    reason: ""'))).toMatch(
      /^accepted\.yaml:8: entry 2: field `reason` must be a non-empty string$/,
    );
    expect(error(GOOD.replace('approvedBy: Jane Doe', 'approvedBy: Jane Doe\n    approver: Bob'))).toBe(
      'accepted.yaml:6: entry 1: unknown field `approver` (fields: id, reason, approvedBy, expires)',
    );
    expect(error(GOOD.replace('expires: 2026-12-31', 'expires: 31.12.2026'))).toBe(
      "accepted.yaml:6: entry 1: field `expires` must be a date YYYY-MM-DD, got '31.12.2026'",
    );
    expect(error(GOOD.replace('expires: 2026-12-31', 'expires: 2026-02-30'))).toBe(
      "accepted.yaml:6: entry 1: field `expires` is not a calendar date: '2026-02-30'",
    );
    expect(error(GOOD.replace('id: enum-values-added@#/', 'id: enum-values-added #/'))).toMatch(
      /^accepted\.yaml:3: entry 1: field `id` must be `<rule>@<JSON pointer>` as the gate prints it, got 'enum-values-added'$/,
    );
    expect(
      error(
        GOOD.replace(
          'operation-removed@#/paths/~1payments~1{id}~1captures/post',
          'enum-values-added@#/components/schemas/Channel/enum',
        ),
      ),
    ).toBe(
      'accepted.yaml:7: entry 2: id enum-values-added@#/components/schemas/Channel/enum is listed twice (first on line 3)',
    );
    expect(error('accepted:\n  id: x@#/a\n')).toBe('accepted.yaml:2: `accepted` must be a list of entries');
    expect(error('accepted: []\nextra: 1\n')).toBe(
      'accepted.yaml:2: unknown key `extra`: the file holds `accepted` only',
    );
    expect(error('accepted:\n  - just text\n')).toMatch(/^accepted\.yaml:2: entry 1: expected a mapping/);
    expect(error('accepted: [\n')).toMatch(/^accepted\.yaml:\d+: /);
  });

  it('expires after the day it names', () => {
    expect(isExpired({ expires: '2026-12-31' }, '2026-12-31')).toBe(false);
    expect(isExpired({ expires: '2026-12-31' }, '2027-01-01')).toBe(true);
    expect(isExpired({}, '2999-01-01')).toBe(false);
  });

  it('the committed file is valid', async () => {
    await expect(loadAcceptedChanges(join(REPO_ROOT, 'openapi', ACCEPTED_FILE))).resolves.toBeInstanceOf(Array);
  });
});
