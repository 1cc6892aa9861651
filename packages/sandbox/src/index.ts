// @payment-service/sandbox: the Payment Service API v2 sandbox for a team's own tests. startSandbox()
// runs one in a child process; connectSandbox() drives a running one's admin API from a test worker;
// createSandbox() runs one in this process, without a socket (its MSW handlers: ./msw).
import { installPlatform } from '../../../sandbox/app/platform.js';
import { readDataFile } from '../../../sandbox/cli/data-file.js';
import { nodePlatform } from '../../../sandbox/platform/node.js';
import { installDataFileReader } from './data-file-reader.js';

// The package's Node entry: an in-process sandbox runs on Node's built-ins, and a data file may be a path.
installPlatform(nodePlatform);
installDataFileReader(readDataFile);

export { connectSandbox } from './admin.js';
export { createSandbox } from './node-sandbox.js';
export { startSandbox } from './process.js';
export type {
  DataFile,
  InProcessOptions,
  InProcessSandbox,
  MerchantCredentials,
  MerchantOptions,
  RunningSandbox,
  SandboxAdmin,
  Scope,
  StartOptions,
  WebhookListener,
} from './types.js';
export { SandboxAdminError } from './types.js';
