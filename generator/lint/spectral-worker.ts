// The worker thread of SpectralWorker (spectral.ts): loads the ruleset as soon as it starts, then
// answers the one bundle it is sent with Spectral's findings (or why the ruleset did not load; sent
// no bundle, with no findings once the ruleset loaded).
import { parentPort, workerData } from 'node:worker_threads';
import { loadRuleset, spectralDiagnostics, type WorkerAnswer } from './spectral.js';

const { rulesetPath } = workerData as { rulesetPath: string };
const ruleset = loadRuleset(rulesetPath).catch((err: unknown) => (err instanceof Error ? err : new Error(String(err))));

parentPort!.once('message', async ({ yaml, source }: { yaml?: string; source: string }) => {
  const loaded = await ruleset;
  const answer: WorkerAnswer =
    loaded instanceof Error
      ? { rulesetError: loaded.message }
      : { results: yaml === undefined ? [] : await spectralDiagnostics(yaml, loaded, source) };
  parentPort!.postMessage(answer);
});
