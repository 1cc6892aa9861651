// node --import tsx generator/lint/spectral-process.ts <ruleset> <bundle.yaml> <source name>
// Spectral on a bundle's text, its findings as JSON on stdout (SpectralProcessOutput). lint.ts runs
// it when it has an abort signal (watch mode): a child process can be killed at once, where
// Spectral's run in-process is one synchronous stretch that nothing interrupts.
import { readFile } from 'node:fs/promises';
import { loadRuleset, type SpectralProcessOutput, spectralDiagnostics } from './lint.js';

const [rulesetPath, bundleFile, source] = process.argv.slice(2) as [string, string, string];
let output: SpectralProcessOutput;
const ruleset = await loadRuleset(rulesetPath).catch((err: unknown) =>
  err instanceof Error ? err : new Error(String(err)),
);
if (ruleset instanceof Error) output = { rulesetError: ruleset.message };
else output = { results: await spectralDiagnostics(await readFile(bundleFile, 'utf8'), ruleset, source) };
process.stdout.write(JSON.stringify(output));
