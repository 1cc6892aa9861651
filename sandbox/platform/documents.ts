// The sandbox's two documents read from the file system, for a Node process: the merchant contract's
// bundle (createContract in contract/contract.ts builds the contract from it) and the admin API's
// document (createApiDocument in contract/api-document.ts). contract/ builds from the objects alone,
// so that a browser page hands it the documents it bundled instead. Where the files lie is
// contract/assets.ts (the package build swaps it for its own: packages/sandbox/build.mjs).
import { readFileSync } from 'node:fs';
import type { JsonObject, OpenAPI3 } from '../../tooling/openapi/walker.js';
import { ADMIN_DOCUMENT_PATH, BUNDLE_PATH } from '../contract/assets.js';

export type OpenApiDocument = OpenAPI3 & JsonObject;

/** The contract's bundle (generated/openapi.json). Throws naming the file when it is missing or broken. */
export const readBundle = (path: URL | string = BUNDLE_PATH): OpenApiDocument => readGenerated(path);

/** The admin API's document (generated/admin/openapi.json). Throws naming the file when it is missing or broken. */
export const readAdminDocument = (path: URL | string = ADMIN_DOCUMENT_PATH): OpenApiDocument => readGenerated(path);

/** A document npm run generate writes as JSON. */
function readGenerated(path: URL | string): OpenApiDocument {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as OpenApiDocument;
  } catch (err) {
    throw new Error(`cannot read ${String(path)}: ${(err as Error).message} (run \`npm run generate\`)`);
  }
}
