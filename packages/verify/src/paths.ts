// Where the package finds the contract (and reads it): beside its code once built (dist/openapi.json),
// the repository's generated bundle when run from source.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Contract, readContract } from './contract.js';

export function bundleUrl(): string {
  const packaged = new URL('./openapi.json', import.meta.url);
  if (existsSync(fileURLToPath(packaged))) return packaged.href;
  return new URL('../../../generated/openapi.json', import.meta.url).href;
}

/** The Arazzo workflows: `dist/arazzo/` once built, the repository's `arazzo/` from source. */
export function arazzoDir(): string {
  const packaged = new URL('./arazzo/', import.meta.url);
  if (existsSync(fileURLToPath(packaged))) return fileURLToPath(packaged);
  return fileURLToPath(new URL('../../../arazzo/', import.meta.url));
}

let contract: Contract | undefined;
/** The contract this package carries, read once. */
export function loadContract(): Contract {
  contract ??= readContract(JSON.parse(readFileSync(new URL(bundleUrl()), 'utf8')));
  return contract;
}
