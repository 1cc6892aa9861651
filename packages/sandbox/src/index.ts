// @payment-service/sandbox: the Payment Service API v2 sandbox for a team's own tests. startSandbox()
// runs one in a child process; connectSandbox() drives a running one's admin API from a test worker.
export { connectSandbox } from './admin.js';
export { startSandbox } from './process.js';
export type {
  MerchantCredentials,
  MerchantOptions,
  RunningSandbox,
  SandboxAdmin,
  Scope,
  StartOptions,
} from './types.js';
export { SandboxAdminError } from './types.js';
