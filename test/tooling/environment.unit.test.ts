// A child's environment (tooling/process/environment.ts): this process's, with changes applied.
import { describe, expect, it } from 'vitest';
import { environmentWith } from '../../tooling/process/environment.js';

describe('environmentWith', () => {
  it("keeps this process's variables, sets the changed ones and leaves out those given as undefined", () => {
    const name = Object.keys(process.env).find((n) => process.env[n] !== undefined)!;
    const env = environmentWith({ [name]: undefined, PAYMENT_TEST_SET: 'yes' });
    expect(name in env).toBe(false);
    expect(env.PAYMENT_TEST_SET).toBe('yes');
    const kept = Object.keys(process.env).filter((n) => n !== name);
    for (const n of kept) expect(env[n]).toBe(process.env[n]);
    expect(process.env[name]).toBeDefined(); // this process's own is untouched
  });
});
