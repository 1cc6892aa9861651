// The sandbox's two documents bundled into a browser page, which has no disk to read them from (on
// Node, platform/documents.ts reads them): the merchant contract's bundle and the admin API's
// document (generated/admin/openapi.json, npm run generate's JSON of sandbox/admin/openapi.yaml).

import adminDocument from '../../generated/admin/openapi.json' with { type: 'json' };
import bundle from '../../generated/openapi.json' with { type: 'json' };
import { type Contract, createContract } from '../contract/contract.js';
import { type AdminDocument, adminDocumentOf } from '../http/admin/document.js';
import type { OpenApiDocument } from './documents.js';

/** The contract of the bundled generated/openapi.json. */
export const bundledContract = (): Contract => createContract(bundle as unknown as OpenApiDocument);

/** The admin API's document bundled from generated/admin/openapi.json, prepared. */
export const bundledAdminDocument = (): AdminDocument => adminDocumentOf(adminDocument as unknown as OpenApiDocument);
