// A transaction's expirationTime must lie in the future (sandbox/domain/expiration.ts): the instant
// itself is past, a later one is not, an absent one is no problem, and offsets other than Z count.
import { describe, expect, it } from 'vitest';
import { expirationProblem } from '../../../sandbox/domain/expiration.js';

const NOW = new Date('2026-11-24T09:00:00.000Z');

describe('expirationProblem', () => {
  it('refuses a time before now and now itself, naming the time now', () => {
    expect(expirationProblem('2026-11-24T08:59:59Z', NOW)).toBe(
      'has passed: it must lie in the future (the time now is 2026-11-24T09:00:00.000Z)',
    );
    expect(expirationProblem('2026-11-24T09:00:00.000Z', NOW)).toMatch(/^has passed/);
  });

  it('accepts a later time, and no time at all', () => {
    expect(expirationProblem('2026-11-24T09:00:00.001Z', NOW)).toBeUndefined();
    expect(expirationProblem('2099-12-31T23:59:59Z', NOW)).toBeUndefined();
    expect(expirationProblem(undefined, NOW)).toBeUndefined();
  });

  it('reads the offset: 10:30+02:00 is 08:30Z, past', () => {
    expect(expirationProblem('2026-11-24T10:30:00+02:00', NOW)).toMatch(/^has passed/);
    expect(expirationProblem('2026-11-24T10:30:00+01:00', NOW)).toBeUndefined();
  });
});
