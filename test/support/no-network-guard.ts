// Setup file of the `in-process` project: besides the unit project's rules (no process, no listening
// socket, no database), no connection goes out either, so a test that says "in process" proves it:
// a request that escapes the in-process mock throws here instead of reaching a server.
import net from 'node:net';

class NetworkRuleError extends Error {
  constructor() {
    super('an in-process test opened a connection (net.Socket.connect): the request escaped the in-process mock');
    this.name = 'NetworkRuleError';
  }
}

net.Socket.prototype.connect = function refused(): never {
  throw new NetworkRuleError();
};
