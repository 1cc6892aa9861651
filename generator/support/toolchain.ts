import { join } from 'node:path';
import type { StepInputs } from './inputs.js';
import { REPO_ROOT } from './paths.js';

/**
 * The code and tools behind every step, part of every key of the step cache: generator/ and
 * tooling/ (the steps, the house rules, docs.redocly.yaml), package.json, the lockfile and npm's
 * record of what node_modules holds (node_modules/.package-lock.json: Redocly, Spectral,
 * openapi-typescript, Scalar and every other package by version and integrity), tsconfig.json
 * (how the code is compiled) and the Node.js version.
 */
export const TOOLCHAIN: StepInputs = {
  files: ['package.json', 'package-lock.json', join('node_modules', '.package-lock.json'), 'tsconfig.json'].map((f) =>
    join(REPO_ROOT, f),
  ),
  trees: [join(REPO_ROOT, 'generator'), join(REPO_ROOT, 'tooling')],
  contracts: [],
  values: [`node ${process.version}`],
};
