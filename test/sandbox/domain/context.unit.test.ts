// The contract's code tables as the domain takes them (sandbox/domain/context.ts): every response
// code name the domain uses is in x-response-codes, each simulation code resolves to a success or a
// decline with its code and provider details, and broken tables are refused naming what is wrong.
// Also the test DomainContext itself (test/support/domain.ts): fixed clock, deterministic ids.
import { describe, expect, it } from 'vitest';
import { codeTables, RESPONSE_CODE_NAMES } from '../../../sandbox/domain/context.js';
import { contractCodeTables, T0, testDomain } from '../../support/domain.js';

describe('codeTables on the contract', () => {
  const { responseCodes, simulationCodes } = contractCodeTables();

  it('the contract names every response code the domain sends, with a distinct eight-digit code', () => {
    for (const name of RESPONSE_CODE_NAMES)
      expect(responseCodes[name], name).toMatchObject({
        responseCode: expect.stringMatching(/^\d{8}$/),
        responseDescription: expect.any(String),
      });
    const codes = Object.values(responseCodes).map((c) => c.responseCode);
    expect(new Set(codes).size).toBe(codes.length);
  });

  it('codes are the contract entries by name', () => {
    const { codes } = codeTables(responseCodes, simulationCodes);
    for (const name of RESPONSE_CODE_NAMES) expect(codes[name]).toEqual(responseCodes[name]);
  });

  it('each simulation code resolves: SUCCESS to success, the others to a decline with their code and provider details', () => {
    const { simulations } = codeTables(responseCodes, simulationCodes);
    expect([...simulations.keys()]).toEqual(simulationCodes.map((s) => s.simulationMode));
    expect(simulations.get('SUCCESS')).toEqual({ kind: 'success' });
    for (const s of simulationCodes.filter((x) => x.responseCode !== responseCodes.SUCCESS!.responseCode)) {
      const resolved = simulations.get(s.simulationMode);
      const code = Object.values(responseCodes).find((c) => c.responseCode === s.responseCode);
      expect(resolved).toEqual({
        kind: 'decline',
        code,
        ...(s.providerDetails ? { providerDetails: s.providerDetails } : {}),
      });
    }
    // the contract lists at least one decline, so that the tests of declines test something
    expect([...simulations.values()].filter((v) => v.kind === 'decline').length).toBeGreaterThan(0);
  });
});

describe('codeTables on broken tables', () => {
  const { responseCodes, simulationCodes } = contractCodeTables();

  it('refuses response codes that lack a name the domain uses, naming each', () => {
    const { WRONG_STATE: _w, PLAN_NOT_ACTIVE: _p, ...lacking } = responseCodes;
    expect(() => codeTables(lacking, simulationCodes)).toThrow(/x-response-codes lack WRONG_STATE, PLAN_NOT_ACTIVE/);
  });

  it('refuses a simulation code whose response code the table lacks', () => {
    expect(() =>
      codeTables(responseCodes, [...simulationCodes, { simulationMode: 'MYSTERY', responseCode: '12345678' }]),
    ).toThrow(/MYSTERY names response code 12345678/);
  });

  it('a simulation code naming the SUCCESS code is a success whatever its name; a decline without details carries none', () => {
    const { simulations } = codeTables(responseCodes, [
      {
        simulationMode: 'ALL_GOOD',
        responseCode: responseCodes.SUCCESS!.responseCode,
        providerDetails: { card: { x: 1 } },
      },
      { simulationMode: 'PLAIN_DECLINE', responseCode: responseCodes.DECLINED!.responseCode },
    ]);
    expect(simulations.get('ALL_GOOD')).toEqual({ kind: 'success' });
    const plain = simulations.get('PLAIN_DECLINE');
    expect(plain).toEqual({ kind: 'decline', code: responseCodes.DECLINED });
    expect(plain && 'providerDetails' in plain).toBe(false);
  });
});

describe('the test DomainContext', () => {
  it('stands still until moved, and hands out ids that count per kind', () => {
    const ctx = testDomain();
    expect(ctx.now.toISOString()).toBe(T0);
    expect([ctx.newId('payment'), ctx.newId('payment'), ctx.newId('operation'), ctx.newId('plan')]).toEqual([
      'pay_0001',
      'pay_0002',
      'op_0001',
      'pp_0001',
    ]);
    expect(ctx.issued('payment')).toBe(2);
    expect(ctx.advance(1000).now.toISOString()).toBe('2026-11-24T09:00:01.000Z');
    expect(ctx.at('2030-01-01T00:00:00Z').now.toISOString()).toBe('2030-01-01T00:00:00.000Z');
    expect(testDomain().newId('payment')).toBe('pay_0001');
  });

  it('names response codes by the contract table, and refuses codes it lacks', () => {
    const ctx = testDomain();
    expect(ctx.nameOf(ctx.codes.WRONG_STATE.responseCode)).toBe('WRONG_STATE');
    expect(() => ctx.nameOf('00000042')).toThrow(/not in the contract/);
  });
});
