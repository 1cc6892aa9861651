// The admin operations on merchants and their data: list, create and delete them, rotate an API key,
// give a scope the contract's examples, reset data.
import type { components } from '../../../generated/admin/types.js';
import { listMerchants, resetData } from '../../app/admin.js';
import { createMerchant, deleteMerchant, rotateApiKey } from '../../app/merchants.js';
import { isRejection } from '../../app/outcomes.js';
import { giveExamples } from '../../app/seed.js';
import { rejectionReply } from './replies.js';
import type { AdminDeps, AdminHandlersOf } from './types.js';

type Schemas = components['schemas'];

export function merchantHandlers(
  deps: AdminDeps,
): AdminHandlersOf<
  'listMerchants' | 'createMerchant' | 'deleteMerchant' | 'rotateMerchantApiKey' | 'seedExamples' | 'resetData'
> {
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
      const created = await createMerchant(
        store,
        deps.secrets,
        {
          merchantId: wanted.merchantId,
          webhookKind: wanted.webhookKind,
          examples: wanted.examples ? deps.examples : undefined,
        },
        clocks.wall(),
      );
      if ('conflict' in created)
        return r.problem(409, {
          title: 'The merchant id is taken.',
          detail: created.conflict,
          type: 'sandbox/merchant-exists',
        });
      const body: Schemas['CreatedMerchant'] = {
        ...created.credentials,
        createdAt: created.createdAt,
        ...(created.examples ? { examples: created.examples } : {}),
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

    async resetData(r) {
      const { examples, ...filter } = r.body ?? {};
      const reset = await resetData(store, clocks, filter, { examples: examples ? deps.examples : undefined });
      if (isRejection(reset)) return rejectionReply(r, reset);
      const body: Schemas['ResetResult'] = { ...filter, ...reset };
      return { status: 200, body };
    },
  };
}
