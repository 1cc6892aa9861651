// Setup file of the `unit` project: a unit test spawns no process, listens on no socket and opens no
// database. Each of those throws here, naming the rule, so the project holds itself to what its name
// says (a test that needs one belongs to its area's project: test/<area>/<name>.test.ts).
import childProcess from 'node:child_process';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import net from 'node:net';

class UnitTestRuleError extends Error {
  constructor(what: string) {
    super(
      `a unit test ${what}: the unit project runs without processes, sockets or databases; move the test to its area (test/<area>/<name>.test.ts)`,
    );
    this.name = 'UnitTestRuleError';
  }
}

const refuse = (what: string) =>
  function refused(): never {
    throw new UnitTestRuleError(what);
  };

for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const)
  Object.defineProperty(childProcess, name, { value: refuse(`spawns a process (child_process.${name})`) });
syncBuiltinESMExports();

// Every server (node:http, node:https, fastify) listens through net.Server.
net.Server.prototype.listen = refuse('listens on a socket (net.Server.listen)');

const require = createRequire(import.meta.url);
const sqlite = require('better-sqlite3') as { prototype: object };
const pg = require('pg') as { Client: { prototype: { connect: unknown } }; Pool: { prototype: { connect: unknown } } };
pg.Client.prototype.connect = refuse('opens a database (pg.Client.connect)');
pg.Pool.prototype.connect = refuse('opens a database (pg.Pool.connect)');
require.cache[require.resolve('better-sqlite3')]!.exports = new Proxy(sqlite, {
  construct: refuse('opens a database (better-sqlite3)'),
  apply: refuse('opens a database (better-sqlite3)'),
});
// SQLite compiled to WebAssembly, which a `:memory:` store falls back to, is a database all the same:
// its module is refused where it is compiled (sql.js is imported as an ES module, past require's cache).
const instantiate = WebAssembly.instantiate.bind(WebAssembly) as (...args: unknown[]) => Promise<unknown>;
const isSqlite = (source: unknown) =>
  (source instanceof ArrayBuffer || ArrayBuffer.isView(source)) &&
  Buffer.from(source instanceof ArrayBuffer ? source : source.buffer).includes('SQLite format 3');
WebAssembly.instantiate = ((source: unknown, ...rest: unknown[]) =>
  isSqlite(source)
    ? Promise.reject(new UnitTestRuleError('opens a database (SQLite compiled to WebAssembly, sql.js)'))
    : instantiate(source, ...rest)) as typeof WebAssembly.instantiate;
