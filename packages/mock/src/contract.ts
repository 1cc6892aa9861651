// The contract this package mocks: generated/openapi.json, which its build copies beside the bundled
// command and library (dist/openapi.json). The mock never bundles the contract at run time.
import { fileURLToPath } from 'node:url';

/** The bundled contract's path: dist/openapi.json, next to dist/cli.js and dist/index.js. */
export const CONTRACT_PATH = fileURLToPath(new URL('./openapi.json', import.meta.url));
