import { defineConfig } from 'vitest/config';

/**
 * One project per area of the repository, and `unit`: the tests that need no sandbox, mock, browser,
 * PostgreSQL or child process (`*.unit.test.ts`, wherever their area), run alone by `npm run test:unit`.
 * `npm test` runs every project. A test file belongs to one: `test/architecture.unit.test.ts` holds it.
 */
export const AREAS = ['contract', 'generator', 'sdk', 'mock', 'sandbox', 'e2e', 'tooling', 'code-host'] as const;

export default defineConfig({
  test: {
    // Bundles the contract once for all test files (see test/support/global-setup.ts).
    globalSetup: ['test/support/global-setup.ts'],
    // @actions/workflow-parser imports its JSON schema without an import attribute, which Node's own
    // loader refuses: Vite transforms it instead.
    server: { deps: { inline: ['@actions/workflow-parser'] } },
    // npm run coverage: line coverage of the product folders (scripts/coverage.ts sums it per folder).
    coverage: {
      provider: 'v8',
      include: ['sandbox/**', 'generator/**', 'src/**', 'tooling/**'],
      reporter: ['json-summary'],
      reportsDirectory: 'test-output/coverage',
    },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/**/*.unit.test.ts'] } },
      ...AREAS.map((area) => ({
        extends: true as const,
        test: { name: area, include: [`test/${area}/**/*.test.ts`], exclude: ['**/*.unit.test.ts'] },
      })),
    ],
  },
});
