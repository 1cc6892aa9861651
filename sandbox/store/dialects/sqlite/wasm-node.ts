// sql.js in Node: its WebAssembly module read from disk, compiled once per process (wasm-driver.ts
// holds the database on it, with no Node API, so that a browser page can hold one too).
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { SqlJsStatic } from 'sql.js';
import { SQL_WASM, type SqliteLike, wasmDatabase } from './wasm-driver.js';

/**
 * Where sql.js's WebAssembly module is read from: the path given; else `sql-wasm.wasm` beside this
 * module, which for a bundle is beside the bundle (a package that bundles sql.js copies the file
 * there); else sql.js's own, as Node resolves the package from here.
 */
function wasmFile(given: string | undefined): string {
  if (given) return given;
  const beside = fileURLToPath(new URL(SQL_WASM, import.meta.url));
  if (existsSync(beside)) return beside;
  try {
    return createRequire(import.meta.url).resolve(`sql.js/dist/${SQL_WASM}`);
  } catch {
    throw new Error(`SQLite's WebAssembly build is missing: no ${beside}, and the package sql.js is not installed`);
  }
}

let loading: Promise<SqlJsStatic> | undefined;

/** sql.js, compiled once per process: the first call's location counts, and a failed load is tried again. */
function sqlJs(wasmPath: string | undefined): Promise<SqlJsStatic> {
  if (!loading) {
    const attempt = (async () => {
      const bytes = await readFile(wasmFile(wasmPath));
      const { default: initSqlJs } = await import('sql.js');
      return initSqlJs({ wasmBinary: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) });
    })();
    loading = attempt;
    attempt.catch(() => {
      if (loading === attempt) loading = undefined;
    });
  }
  return loading;
}

/** A new, empty in-memory SQLite database on sql.js, its WebAssembly read from disk. */
export async function openWasmDatabase(options: { wasmPath?: string } = {}): Promise<SqliteLike> {
  return wasmDatabase(await sqlJs(options.wasmPath));
}
