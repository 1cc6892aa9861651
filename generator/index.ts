// npm run generate [-- --watch]
// The one pipeline from the contract to everything derived from it. Each step prints one line
// with its elapsed time; the first failing step stops the run with the tool's own message
// (file and line) and a non-zero exit. Every file is written atomically.
import { relative } from 'node:path';
import { BundleError, bundleContract, writeBundle, type BundleResult } from './bundle.js';
import { formatProblem, lintContract } from './lint.js';
import { DEFAULT_OUT, DEFAULT_ROOT } from './paths.js';

export class StepError extends Error {}

interface Step {
  name: string;
  run: () => Promise<string | void>;
}

async function runSteps(steps: Step[]): Promise<boolean> {
  const start = performance.now();
  for (const step of steps) {
    const t0 = performance.now();
    try {
      const detail = await step.run();
      console.log(`✔ ${step.name.padEnd(10)} ${ms(t0)}${detail ? `  ${detail}` : ''}`);
    } catch (err) {
      console.log(`✖ ${step.name.padEnd(10)} ${ms(t0)}`);
      console.error(err instanceof StepError || err instanceof BundleError ? err.message : err);
      console.error(`generate failed at step "${step.name}"; files of later steps were not touched`);
      return false;
    }
  }
  console.log(`✔ done       ${ms(start)}`);
  return true;
}

const ms = (t0: number) => `${Math.round(performance.now() - t0)} ms`.padStart(8);

export async function generate(root = DEFAULT_ROOT, out = DEFAULT_OUT): Promise<boolean> {
  // Bundling starts at once and is shared by lint (Spectral lints the bundle) and the writers.
  const bundling = bundleContract({ root });
  bundling.catch(() => undefined); // reported by the lint step
  let bundle: BundleResult;
  return runSteps([
    {
      name: 'lint',
      run: async () => {
        const result = await lintContract({ root, out, bundle: bundling });
        if (!result.ok) throw new StepError(result.problems.map(formatProblem).join('\n'));
        return '0 problems';
      },
    },
    {
      name: 'bundle',
      run: async () => {
        bundle = await bundling;
        const { yamlPath, jsonPath } = await writeBundle(bundle, out);
        return `${relative(process.cwd(), yamlPath)}, ${relative(process.cwd(), jsonPath)}`;
      },
    },
  ]);
}

const ok = await generate();
process.exit(ok ? 0 : 1);
