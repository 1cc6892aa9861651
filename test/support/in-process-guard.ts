// Setup file of the `in-process` project: what runs in process, against an in-process mock or
// sandbox, spawns no process, listens on no socket and opens no connection, so that a test that says
// "in process" proves it: a request that escapes the mock throws here instead of reaching a server.
// Unlike the unit project, it may hold a database in memory (an in-process sandbox's).
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';

class InProcessRuleError extends Error {
  constructor(what: string) {
    super(`an in-process test ${what}: it runs without processes, servers or connections`);
    this.name = 'InProcessRuleError';
  }
}

const refuse = (what: string) =>
  function refused(): never {
    throw new InProcessRuleError(what);
  };

for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const)
  Object.defineProperty(childProcess, name, { value: refuse(`spawned a process (child_process.${name})`) });
syncBuiltinESMExports();
net.Server.prototype.listen = refuse('listened on a socket (net.Server.listen)');
net.Socket.prototype.connect = refuse(
  'opened a connection (net.Socket.connect): the request escaped the in-process mock',
);
