// The package's twin of sandbox/contract/assets.ts (build.mjs puts it in that module's place): the
// documents the sandbox reads at run time, copied into dist/ beside the bundle.
export const BUNDLE_PATH = new URL('./openapi.json', import.meta.url);
export const ADMIN_DOCUMENT_PATH = new URL('./admin-openapi.json', import.meta.url);
