// The sandbox's two documents bundled into a browser page, which has no disk to read them from (on
// Node, platform/documents.ts reads them): the merchant contract's bundle and the admin API's
// document, which the package's browser build parses from its YAML (packages/sandbox/build.mjs).
import bundle from '../../generated/openapi.json' with { type: 'json' };
import adminDocument from '../admin/openapi.yaml';
import { type Contract, createContract } from '../contract/contract.js';
import { type AdminDocument, adminDocumentOf } from '../http/admin/document.js';
import type { OpenApiDocument } from './documents.js';

/** The contract of the bundled generated/openapi.json. */
export const bundledContract = (): Contract => createContract(bundle as unknown as OpenApiDocument);

/** The admin API's document bundled from sandbox/admin/openapi.yaml, prepared. */
export const bundledAdminDocument = (): AdminDocument => adminDocumentOf(adminDocument as OpenApiDocument);
