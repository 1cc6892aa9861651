// connectSandbox(): the admin API (/_sandbox, sandbox/admin/openapi.yaml) over HTTP, as a test worker
// calls it with the origin and admin key its global setup handed over.
import type { components } from '../../../generated/admin/types.js';
import { DataFileError, type DataFileSource, dataFileFindings } from '../../../sandbox/cli/data-findings.js';
import { dataFileReader } from './data-file-reader.js';
import {
  type DataFile,
  type MerchantCredentials,
  type MerchantOptions,
  type SandboxAdmin,
  SandboxAdminError,
} from './types.js';

type Schemas = components['schemas'];

/** The sandbox at `origin`, driven with its admin key (through `fetch`, default globalThis.fetch at each call). */
export function connectSandbox(options: {
  origin: string;
  adminKey: string;
  fetch?: (request: Request) => Promise<Response>;
}): SandboxAdmin {
  const origin = new URL(options.origin).origin;
  const send = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  /** `body` sent; with `file`, the data file it carries, whose faults the error names by line. */
  const call = async <T>(method: string, path: string, body?: object, file?: DataFileSource): Promise<T> => {
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
      const problem = parsed as { title?: string; detail?: string; errors?: Record<string, string[]> } | undefined;
      const findings = dataFileFindings(problem?.errors, file) ?? [];
      throw new SandboxAdminError(
        [
          `${method} /_sandbox${path}: ${response.status} ${[problem?.title, problem?.detail].filter(Boolean).join(' ')}`,
          ...findings.map((line) => `  ${line}`),
        ].join('\n'),
        response.status,
        parsed,
        findings,
      );
    }
    return parsed as T;
  };
  const path = (merchantId: string) => encodeURIComponent(merchantId);
  /** A data file's content, and (read from disk) where its fields are. */
  const dataOf = (data: DataFile): { data: Schemas['DataFile']; file?: DataFileSource } => {
    if (typeof data !== 'string') return { data: data as Schemas['DataFile'] };
    const read = dataFileReader();
    if (!read)
      throw new SandboxAdminError(`a data file's path (${data}) needs Node: give its content as an object`, undefined);
    try {
      const file = read(data);
      return { data: file.data as Schemas['DataFile'], file };
    } catch (err) {
      if (err instanceof DataFileError)
        throw new SandboxAdminError(
          `the data file ${data} cannot be used:\n  ${err.lines.join('\n  ')}`,
          undefined,
          undefined,
          err.lines,
        );
      throw err;
    }
  };
  return {
    async snapshot(scope) {
      const body: Schemas['SnapshotRequest'] = { ...scope };
      return (await call<Schemas['Snapshot']>('POST', '/snapshots', body)).snapshotId;
    },
    async restore(snapshotId) {
      await call('POST', `/snapshots/${path(snapshotId)}/restore`);
    },
    async createMerchant(wanted: MerchantOptions = {}): Promise<MerchantCredentials> {
      const { data, ...rest } = wanted;
      const given = data === undefined ? undefined : dataOf(data);
      const body: Schemas['MerchantRequest'] = { ...rest, data: given?.data };
      const created = await call<Schemas['CreatedMerchant']>('POST', '/merchants', body, given?.file);
      return { merchantId: created.merchantId, apiKey: created.apiKey, webhookSecret: created.webhookSecret };
    },
    async deleteMerchant(merchantId) {
      await call('DELETE', `/merchants/${path(merchantId)}`);
    },
    async reset(scope, seed) {
      const given = seed?.data === undefined ? undefined : dataOf(seed.data);
      const body: Schemas['ResetRequest'] = {
        ...scope,
        examples: seed?.examples ? true : undefined,
        data: given?.data,
      };
      await call<Schemas['ResetResult']>('POST', '/reset', body, given?.file);
    },
    async loadData(scope, data) {
      const given = dataOf(data);
      const body: Schemas['DataRequest'] = { environment: scope.environment ?? 'test', data: given.data };
      await call<Schemas['DataObjects']>('POST', `/merchants/${path(scope.merchantId)}/data`, body, given.file);
    },
    async advanceClock(scope, by) {
      if ((by.to === undefined) === (by.seconds === undefined))
        throw new SandboxAdminError('advanceClock: give `seconds` or `to`, one of them', undefined);
      const body: Schemas['AdvanceRequest'] = by.to !== undefined ? { to: by.to } : { seconds: by.seconds! };
      await call('POST', `/clocks/${path(scope.merchantId)}/${scope.environment ?? 'test'}/advance`, body);
    },
  };
}
