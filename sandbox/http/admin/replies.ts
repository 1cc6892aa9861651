// Answers the admin operations share.
import type { Rejection } from '../../app/outcomes.js';
import type { Merchant } from '../../domain/types.js';
import type { Reply } from '../pipeline.js';
import type { AdminRequest } from './types.js';

/** A rejection as the admin document answers it: 404 naming what is missing. */
export const rejectionReply = (r: Pick<AdminRequest, 'problem'>, rejection: Rejection): Reply =>
  r.problem(404, {
    title: 'Not found.',
    detail: rejection.rejected === 'notFound' ? `No ${rejection.what.toLowerCase()} ${rejection.id}.` : 'Not found.',
  });

/** The 404 of a webhook delivery id that names none. */
export const noDelivery = (r: Pick<AdminRequest, 'problem'>, id: string): Reply =>
  rejectionReply(r, { rejected: 'notFound', what: 'Webhook delivery', id });

/** The merchant of a listener operation (authenticated before the handler runs). */
export const merchantOf = (r: Pick<AdminRequest, 'merchant'>): Merchant => {
  if (!r.merchant) throw new Error('a listener operation ran without merchant credentials');
  return r.merchant;
};
