// The admin API's document (sandbox/admin/openapi.yaml): its operations, prepared by the contract's
// machinery (routes, validation, problem bodies and the response check all come from it).
import type { operations } from '../../../generated/admin/types.js';
import type { JsonObject, OpenAPI3 } from '../../../tooling/openapi/walker.js';
import { type ApiDocument, createApiDocument } from '../../contract/api-document.js';

/** Every path of the admin document starts with it; the merchant roots never do. */
export const ADMIN_PREFIX = '/_sandbox';
/** The operations that take a merchant's credentials (`npm run sandbox -- listen`): the document's scheme. */
export const LISTENER_SCHEME = 'listenerAuth';
/** The realms of its 401 challenges: the admin key's, and the listener operations' (a merchant's credentials). */
const REALMS = { adminKey: 'sandbox-admin', [LISTENER_SCHEME]: 'sandbox-listen' };

export type AdminOperationId = keyof operations;
export type AdminDocument = ApiDocument<AdminOperationId>;

/** The admin API of `document` (sandbox/admin/openapi.yaml as an object), prepared. */
export const adminDocumentOf = (document: OpenAPI3 & JsonObject): AdminDocument =>
  createApiDocument<AdminOperationId>(document, { realms: REALMS });
