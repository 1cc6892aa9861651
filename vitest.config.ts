import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * One project per area of the repository, `unit` and `serial`:
 * - `unit`: the tests that need no process, socket or database (`*.unit.test.ts`, wherever their
 *   area), run alone by `npm run test:unit`; test/support/unit-guard.ts makes each of those throw.
 * - an area (`test/<area>/`): its other files. The servers an area's files share are started once
 *   per run by the global setups it lists (test/support/services/): PostgreSQL, Chromium, Prism, the
 *   other Node.js lines.
 * - `in-process`: files that install an in-process mock of the network (`*.msw.test.ts`: Mock Service
 *   Worker patches fetch and node:http for the whole process), each in a worker of its own so that no
 *   other file runs under it; they spawn nothing and open no socket, listening or connecting
 *   (test/support/in-process-guard.ts), but may hold an in-memory database (an in-process sandbox's).
 * - `serial`: files whose assertions are about time or memory (timeouts, a delivery within a second),
 *   run after the others, three at a time (together they keep about one core busy), on an otherwise
 *   idle machine.
 * `npm test` runs every project. A test file belongs to one: `test/architecture.unit.test.ts` holds it.
 * The unit project's files are queued last of their group (ShortFilesLast).
 */
export const AREAS = [
  'contract',
  'generator',
  'sdk',
  'mock',
  'sandbox',
  'e2e',
  'tooling',
  'code-host',
  'verify',
] as const;

/** The in-process project's files. */
export const IN_PROCESS = 'test/**/*.msw.test.ts';

/** The serial project's files. */
export const SERIAL = [
  'test/sandbox/idle-connections.test.ts',
  'test/sandbox/limits.test.ts',
  'test/sandbox/webhook-fairness.test.ts',
  'test/sandbox/hidden-classes.test.ts',
  'test/sandbox/credentials.test.ts',
];

/** Every project's first setup file: the sandbox's platform (sandbox/app/platform.ts), Node's. */
const PLATFORM = 'test/support/platform.ts';

const SERVICES = {
  programs: 'test/support/services/programs.ts',
  postgres: 'test/support/services/postgres.ts',
  chromium: 'test/support/services/chromium.ts',
  prism: 'test/support/services/prism.ts',
  mockCommand: 'test/support/services/mock-command.ts',
  nodeLines: 'test/support/services/node-lines.ts',
};
const AREA_SERVICES: Partial<Record<(typeof AREAS)[number], string[]>> = {
  tooling: [SERVICES.nodeLines],
  sandbox: [SERVICES.programs, SERVICES.postgres, SERVICES.chromium, SERVICES.nodeLines],
  e2e: [SERVICES.programs, SERVICES.chromium],
  mock: [SERVICES.programs, SERVICES.prism, SERVICES.mockCommand, SERVICES.nodeLines],
  sdk: [SERVICES.prism, SERVICES.nodeLines],
  generator: [SERVICES.programs],
  verify: [SERVICES.programs, SERVICES.prism, SERVICES.mockCommand],
};

/**
 * The code samples import the SDK by its published name; the samples' tsconfig (written by the
 * generator) maps it to the source, and so does the module resolution of the test that imports them.
 */
function sampleAliases(): { find: RegExp; replacement: string }[] {
  const dir = join(import.meta.dirname, 'generated', 'samples');
  const text = readFileSync(join(dir, 'tsconfig.json'), 'utf8').replace(/^\s*\/\/.*$/gm, '');
  const paths = (JSON.parse(text) as { compilerOptions: { paths: Record<string, [string]> } }).compilerOptions.paths;
  return Object.entries(paths).map(([name, [target]]) => ({
    find: new RegExp(`^${name.replace(/[/.]/g, '\\$&')}$`),
    replacement: join(dir, target),
  }));
}

/**
 * Vitest's order (projects one after another, by name; within one, the longest files first) with
 * the unit project's files queued after every other project's of the same group: a hundred files
 * of a fraction of a second each fill the workers as the long files of the areas end, where
 * by name the verifier's files, some of the longest, would come last and run on a half-idle
 * machine.
 */
class ShortFilesLast extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) =>
      file.project.config.sequence.groupOrder * 2 + (file.project.name === 'unit' ? 1 : 0);
    // Array.prototype.sort is stable: within a rank, Vitest's order stays.
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

/** What every project shares (projects do not extend the root: its global setup runs once, for all). */
const common = {
  // @actions/workflow-parser imports its JSON schema without an import attribute, which Node's own
  // loader refuses: Vite transforms it instead.
  server: { deps: { inline: ['@actions/workflow-parser'] } },
  testTimeout: 30_000,
  hookTimeout: 60_000,
};

export default defineConfig({
  test: {
    // Bundles the contract once for all test files (see test/support/global-setup.ts).
    globalSetup: ['test/support/global-setup.ts'],
    // Most files wait on servers, processes and the network rather than compute: more workers than
    // the two cores keep both busy. The serial project overrides it (its own group, below).
    maxWorkers: 4,
    sequence: { sequencer: ShortFilesLast },
    // npm run coverage: line coverage of the product folders (scripts/coverage.ts sums it per folder).
    coverage: {
      provider: 'v8',
      include: ['{sandbox,generator,src,tooling}/**/*.{ts,mts,mjs}'],
      // a run with a failing test still reports what it covered
      reportOnFailure: true,
      reporter: ['json-summary'],
      reportsDirectory: 'test-output/coverage',
    },
    projects: [
      {
        test: {
          ...common,
          name: 'unit',
          include: ['test/**/*.unit.test.ts'],
          exclude: [IN_PROCESS],
          setupFiles: [PLATFORM, 'test/support/unit-guard.ts'],
          // Pure tests share nothing but the modules they import: each worker imports them once.
          isolate: false,
        },
      },
      ...AREAS.map((area) => ({
        ...(area === 'generator' ? { resolve: { alias: sampleAliases() } } : {}),
        test: {
          ...common,
          name: area,
          include: [`test/${area}/**/*.test.ts`],
          exclude: ['**/*.unit.test.ts', IN_PROCESS, ...SERIAL],
          globalSetup: AREA_SERVICES[area] ?? [],
          setupFiles: [PLATFORM],
          // A worker imports the product's modules once for all its files (fastify, Ajv, the
          // contract's validators): importing them anew per file was a third of the sandbox area's
          // CPU. The files share no state through them: each starts its own servers and stores.
          isolate: false,
        },
      })),
      {
        test: {
          ...common,
          name: 'in-process',
          include: [IN_PROCESS],
          setupFiles: [PLATFORM, 'test/support/in-process-guard.ts'],
          isolate: true,
        },
      },
      {
        test: {
          ...common,
          name: 'serial',
          include: SERIAL,
          globalSetup: [SERVICES.programs, SERVICES.postgres],
          setupFiles: [PLATFORM],
          maxWorkers: 3,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
