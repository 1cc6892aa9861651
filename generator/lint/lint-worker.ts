// The worker thread of LintWorker (checks.ts): starts the checks that need no bundle at once, then
// answers the one bundle it is sent (or none, when the contract did not bundle).
import { parentPort, workerData } from 'node:worker_threads';
import { type BundleText, type ChecksSetup, startChecks } from './checks.js';

const checks = startChecks(workerData as ChecksSetup);
parentPort!.once('message', async (bundle: BundleText | undefined) => {
  parentPort!.postMessage(await checks.check(bundle));
});
