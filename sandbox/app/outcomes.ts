// Why a use case did not do what it was asked: the HTTP layer turns each into a status and a body
// (400 naming the field, 404, 422 with the domain's result), the jobs into a log line.
import type { Schemas } from '../domain/types.js';

export type Rejection =
  /** A rule beyond the schema failed for one field (a simulation code, card data, a plan's amount rule). */
  | { rejected: 'invalid'; field: string; message: string }
  /** The addressed record does not exist in the scope. */
  | { rejected: 'notFound'; what: string; id: string }
  /** The domain refused the request, and says why in a result body (a taken transId, a plan charge or an intent it cannot make). */
  | { rejected: 'refused'; result: Schemas['DeclinedOperationResult'] | Schemas['DeclinedPlanCharge'] };

export const invalid = (field: string, message: string): Rejection => ({ rejected: 'invalid', field, message });

export const notFound = (what: string, id: string): Rejection => ({ rejected: 'notFound', what, id });

export const refused = (result: Extract<Rejection, { rejected: 'refused' }>['result']): Rejection => ({
  rejected: 'refused',
  result,
});

export const isRejection = (outcome: object): outcome is Rejection => 'rejected' in outcome;
