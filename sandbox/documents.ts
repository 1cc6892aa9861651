// The sandbox's two documents on Node, each read once per process: the merchant contract from its
// bundle and the admin API's document from its JSON (platform/documents.ts reads the files). The
// roots that run on Node (server.ts, the in-process sandbox in Node, the tests) take them from here;
// a browser page builds them from the documents it bundled (adminDocumentOf, createContract).
import { type Contract, createContract } from './contract/contract.js';
import { type AdminDocument, adminDocumentOf } from './http/admin/document.js';
import { readAdminDocument, readBundle } from './platform/documents.js';

let contract: Contract | undefined;
let admin: AdminDocument | undefined;

/** The contract of generated/openapi.json. */
export const loadContract = (): Contract => (contract ??= createContract(readBundle()));

/** The admin API's document (generated/admin/openapi.json, from sandbox/admin/openapi.yaml), prepared. */
export const loadAdminDocument = (): AdminDocument => (admin ??= adminDocumentOf(readAdminDocument()));
