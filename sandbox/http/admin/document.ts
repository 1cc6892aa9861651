// The admin API's document (sandbox/admin/openapi.yaml): its operations, prepared by the contract's
// machinery (routes, validation, problem bodies and the response check all come from it).
import type { operations } from '../../../generated/admin/types.js';
import { type ApiDocument, loadApiDocument } from '../../contract/api-document.js';
import { ADMIN_DOCUMENT_PATH } from '../../contract/assets.js';

export { ADMIN_DOCUMENT_PATH } from '../../contract/assets.js';
/** Every path of the admin document starts with it; the merchant roots never do. */
export const ADMIN_PREFIX = '/_sandbox';
/** The operations that take a merchant's credentials (`npm run sandbox -- listen`): the document's scheme. */
export const LISTENER_SCHEME = 'listenerAuth';
/** The realms of its 401 challenges: the admin key's, and the listener operations' (a merchant's credentials). */
const REALMS = { adminKey: 'sandbox-admin', [LISTENER_SCHEME]: 'sandbox-listen' };

export type AdminOperationId = keyof operations;
export type AdminDocument = ApiDocument<AdminOperationId>;

let cached: AdminDocument | undefined;
/** The admin document, read and prepared once per process. */
export const loadAdminDocument = (): AdminDocument =>
  (cached ??= loadApiDocument<AdminOperationId>(ADMIN_DOCUMENT_PATH, { realms: REALMS }));
