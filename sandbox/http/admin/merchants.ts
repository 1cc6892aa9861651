// The admin operations on merchants and their data: list, create and delete them, rotate an API key,
// give a scope the contract's examples or a data file, reset data.
import type { components } from '../../../generated/admin/types.js';
import { listMerchants, type ResetSeed, resetData } from '../../app/admin.js';
import { giveData } from '../../app/data-load.js';
import { createMerchant, deleteMerchant, rotateApiKey } from '../../app/merchants.js';
import { isRejection } from '../../app/outcomes.js';
import { giveExamples } from '../../app/seed.js';
import { checkedData, dataConflict } from './data-files.js';
import { rejectionReply } from './replies.js';
import type { AdminDeps, AdminHandlersOf } from './types.js';

type Schemas = components['schemas'];

/** A request's data file checked at `now`, ready for the use cases; or the 400 naming its faults. */
function dataOf(deps: AdminDeps, r: Parameters<typeof checkedData>[0], data: object, now: Date) {
  const checked = checkedData(r, data, { tables: deps.examples.tables, now });
  return 'reply' in checked ? checked : { data: { deps: deps.examples, file: checked.file } };
}

/** The merchants themselves: list, create (with examples or a data file), delete, rotate an API key. */
export function merchantHandlers(
  deps: AdminDeps,
): AdminHandlersOf<'listMerchants' | 'createMerchant' | 'deleteMerchant' | 'rotateMerchantApiKey'> {
  const { store, clocks } = deps;
  return {
    async listMerchants() {
      const merchants = await listMerchants(store);
      const body: Schemas['MerchantList'] = {
        data: merchants.map((m) => ({
          merchantId: m.merchantId,
          webhookKind: m.webhookKind ?? 'enhanced',
          createdAt: m.createdAt,
        })),
      };
      return { status: 200, body };
    },

    async createMerchant(r) {
      const wanted = r.body ?? {};
      const now = clocks.wall();
      const data = wanted.data === undefined ? undefined : dataOf(deps, r, wanted.data, now);
      if (data && 'reply' in data) return data.reply;
      const created = await createMerchant(
        store,
        deps.secrets,
        {
          merchantId: wanted.merchantId,
          webhookKind: wanted.webhookKind,
          examples: wanted.examples ? deps.examples : undefined,
          data: data?.data,
        },
        now,
      );
      if ('dataConflict' in created) return dataConflict(r, created.dataConflict);
      if ('conflict' in created)
        return r.problem(409, {
          title: 'The merchant id is taken.',
          detail: created.conflict,
          type: 'sandbox/merchant-exists',
        });
      const body: Schemas['CreatedMerchant'] = {
        ...created.credentials,
        createdAt: created.createdAt,
        examples: created.examples,
        data: created.data,
      };
      return { status: 201, body };
    },

    async deleteMerchant(r) {
      const deleted = await deleteMerchant(store, r.path.merchantId);
      if (isRejection(deleted)) return rejectionReply(r, deleted);
      deps.forgetCredentials(r.path.merchantId);
      await clocks.refresh();
      return { status: 204 };
    },

    async rotateMerchantApiKey(r) {
      const rotated = await rotateApiKey(store, deps.secrets, r.path.merchantId);
      if (isRejection(rotated)) return rejectionReply(r, rotated);
      deps.forgetCredentials(r.path.merchantId);
      const body: Schemas['RotatedApiKey'] = { merchantId: r.path.merchantId, apiKey: rotated.apiKey };
      return { status: 200, body };
    },
  };
}

/** A merchant's data: the contract's examples or a data file given to a scope, data reset. */
export function scopeDataHandlers(deps: AdminDeps): AdminHandlersOf<'seedExamples' | 'loadData' | 'resetData'> {
  const { store, clocks } = deps;
  return {
    async seedExamples(r) {
      const scope = { merchantId: r.path.merchantId, environment: r.body?.environment ?? 'test' };
      const made = await giveExamples(store, deps.examples, scope.merchantId, scope.environment, clocks.now(scope));
      if ('conflict' in made)
        return r.problem(409, {
          title: "The scope holds data the contract's examples collide with.",
          detail: made.conflict,
          type: 'sandbox/examples-conflict',
        });
      if (isRejection(made)) return rejectionReply(r, made);
      const body: Schemas['ExampleObjects'] = { ...scope, objects: made.objects };
      return { status: 201, body };
    },

    async loadData(r) {
      const scope = { merchantId: r.path.merchantId, environment: r.body.environment ?? 'test' };
      const now = clocks.now(scope);
      const data = dataOf(deps, r, r.body.data, now);
      if ('reply' in data) return data.reply;
      const made = await giveData(store, deps.examples, scope, now, data.data.file);
      if (isRejection(made)) return rejectionReply(r, made);
      if ('dataConflict' in made) return dataConflict(r, made.dataConflict);
      const body: Schemas['DataObjects'] = { ...scope, objects: made.objects };
      return { status: 201, body };
    },

    async resetData(r) {
      const { examples, data: given, ...filter } = r.body ?? {};
      const seed: ResetSeed = { examples: examples ? deps.examples : undefined };
      if (given !== undefined) {
        // The reset scopes' clocks go back to the wall clock: the file is checked at its time.
        const data = dataOf(deps, r, given, clocks.wall());
        if ('reply' in data) return data.reply;
        seed.data = data.data;
      }
      const reset = await resetData(store, clocks, filter, seed);
      if (isRejection(reset)) return rejectionReply(r, reset);
      if ('dataConflict' in reset) return dataConflict(r, reset.dataConflict);
      const { data, ...rest } = reset;
      const body: Schemas['ResetResult'] = { ...filter, ...rest, data: given === undefined ? undefined : data };
      return { status: 200, body };
    },
  };
}
