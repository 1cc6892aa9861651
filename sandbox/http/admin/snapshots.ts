// The admin operations on snapshots: take one of some scopes' data, restore one.
import type { components } from '../../../generated/admin/types.js';
import { restoreSnapshot, takeSnapshot } from '../../app/admin.js';
import { isRejection } from '../../app/outcomes.js';
import type { SnapshotInfo } from '../../store/store.js';
import { rejectionReply } from './replies.js';
import type { AdminDeps, AdminHandlersOf } from './types.js';

const body = (snapshot: SnapshotInfo): components['schemas']['Snapshot'] => ({
  snapshotId: snapshot.id,
  ...snapshot.filter,
  createdAt: snapshot.createdAt,
  rows: snapshot.counts,
});

export function snapshotHandlers(deps: AdminDeps): AdminHandlersOf<'takeSnapshot' | 'restoreSnapshot'> {
  const { store, clocks } = deps;
  return {
    async takeSnapshot(r) {
      const taken = await takeSnapshot(store, clocks, r.body ?? {});
      if (isRejection(taken)) return rejectionReply(r, taken);
      return { status: 201, body: body(taken) };
    },

    async restoreSnapshot(r) {
      const restored = await restoreSnapshot(store, clocks, r.path.snapshotId);
      if ('conflict' in restored)
        return r.problem(409, {
          title: 'The snapshot cannot be restored.',
          detail: restored.conflict,
          type: 'sandbox/snapshot-merchant-gone',
        });
      if (isRejection(restored)) return rejectionReply(r, restored);
      // Deliveries that were pending are pending again: the deliverer looks at once.
      deps.onWebhookQueued();
      return { status: 200, body: body(restored) };
    },
  };
}
