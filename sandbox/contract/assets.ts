// Where the sandbox reads its two documents at run time: the merchant contract's bundle and the admin
// API's document as JSON (both made by npm run generate: the admin document's source is
// sandbox/admin/openapi.yaml). The package build of @payment-service/sandbox
// puts this module's twin in place (packages/sandbox/src/assets.ts), naming the copies in its dist/.
export const BUNDLE_PATH = new URL('../../generated/openapi.json', import.meta.url);
export const ADMIN_DOCUMENT_PATH = new URL('../../generated/admin/openapi.json', import.meta.url);
