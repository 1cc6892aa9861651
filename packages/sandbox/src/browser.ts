// @payment-service/sandbox in a browser page (the exports map's `browser` condition): createSandbox()
// holds the sandbox in the page, with its data in SQLite compiled to WebAssembly and Web Crypto for
// its keys, and its MSW handlers (./msw) serve it to msw/browser's setupWorker. The same core as the
// HTTP sandbox (in-process.ts); the two documents are bundled in, not read from a disk.
import { installPlatform } from '../../../sandbox/app/platform.js';
import { bundledAdminDocument, bundledContract } from '../../../sandbox/platform/bundled-documents.js';
import { webPlatform } from '../../../sandbox/platform/web.js';
import { openWasmMemoryStore } from '../../../sandbox/store/dialects/sqlite/wasm-memory.js';
import { inProcessSandbox } from './in-process.js';
import type { InProcessOptions, InProcessSandbox } from './types.js';

// A page runs on the browser's Web Crypto.
installPlatform(webPlatform);

/**
 * A sandbox in this page: `fetch(request)` answers as the HTTP sandbox does, with its data in the
 * page's memory. With `seed`, its ids and keys follow from it; with `now`, every clock starts there
 * and stays until advanced.
 */
export async function createSandbox(options: InProcessOptions = {}): Promise<InProcessSandbox> {
  const wasmUrl = String(options.sqlWasmUrl ?? new URL('./sql-wasm-browser.wasm', import.meta.url));
  return inProcessSandbox(
    {
      openStore: () => openWasmMemoryStore(wasmUrl),
      contract: bundledContract(),
      adminDocument: bundledAdminDocument(),
    },
    options,
  );
}

export { connectSandbox } from './admin.js';
export type {
  InProcessOptions,
  InProcessSandbox,
  MerchantCredentials,
  MerchantOptions,
  SandboxAdmin,
  Scope,
  WebhookListener,
} from './types.js';
export { SandboxAdminError } from './types.js';
