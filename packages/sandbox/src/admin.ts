// connectSandbox(): the admin API (/_sandbox, sandbox/admin/openapi.yaml) over HTTP, as a test worker
// calls it with the origin and admin key its global setup handed over.
import type { components } from '../../../generated/admin/types.js';
import { type MerchantCredentials, type MerchantOptions, type SandboxAdmin, SandboxAdminError } from './types.js';

type Schemas = components['schemas'];

/** The sandbox at `origin`, driven with its admin key (through `fetch`, default globalThis.fetch at each call). */
export function connectSandbox(options: {
  origin: string;
  adminKey: string;
  fetch?: (request: Request) => Promise<Response>;
}): SandboxAdmin {
  const origin = new URL(options.origin).origin;
  const send = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const call = async <T>(method: string, path: string, body?: object): Promise<T> => {
    let response: Response;
    try {
      response = await send(
        new Request(`${origin}/_sandbox${path}`, {
          method,
          headers: {
            authorization: `Bearer ${options.adminKey}`,
            ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          },
          body: body !== undefined ? JSON.stringify(body) : undefined,
        }),
      );
    } catch (err) {
      throw new SandboxAdminError(`no sandbox answers at ${origin}: ${(err as Error).message}`, undefined);
    }
    const text = await response.text();
    const parsed: unknown = text ? JSON.parse(text) : undefined;
    if (!response.ok) {
      const problem = parsed as { title?: string; detail?: string } | undefined;
      throw new SandboxAdminError(
        `${method} /_sandbox${path}: ${response.status} ${[problem?.title, problem?.detail].filter(Boolean).join(' ')}`,
        response.status,
        parsed,
      );
    }
    return parsed as T;
  };
  const path = (merchantId: string) => encodeURIComponent(merchantId);
  return {
    async snapshot(scope) {
      const body: Schemas['SnapshotRequest'] = { ...scope };
      return (await call<Schemas['Snapshot']>('POST', '/snapshots', body)).snapshotId;
    },
    async restore(snapshotId) {
      await call('POST', `/snapshots/${path(snapshotId)}/restore`);
    },
    async createMerchant(wanted: MerchantOptions = {}): Promise<MerchantCredentials> {
      const body: Schemas['MerchantRequest'] = wanted;
      const created = await call<Schemas['CreatedMerchant']>('POST', '/merchants', body);
      return { merchantId: created.merchantId, apiKey: created.apiKey, webhookSecret: created.webhookSecret };
    },
    async deleteMerchant(merchantId) {
      await call('DELETE', `/merchants/${path(merchantId)}`);
    },
    async reset(scope, seed) {
      const body: Schemas['ResetRequest'] = { ...scope, ...(seed?.examples ? { examples: true } : {}) };
      await call<Schemas['ResetResult']>('POST', '/reset', body);
    },
    async advanceClock(scope, by) {
      if ((by.to === undefined) === (by.seconds === undefined))
        throw new SandboxAdminError('advanceClock: give `seconds` or `to`, one of them', undefined);
      const body: Schemas['AdvanceRequest'] = by.to !== undefined ? { to: by.to } : { seconds: by.seconds! };
      await call('POST', `/clocks/${path(scope.merchantId)}/${scope.environment ?? 'test'}/advance`, body);
    },
  };
}
