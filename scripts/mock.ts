// npm run mock [-- --port 4010] [-- --host 127.0.0.1] [-- --dynamic] [-- --quiet] [-- --cors-origin <origin>]
// A Prism mock server of the contract (generated/openapi.json) for front-end teams; see docs/mock.md.
// The command itself (options, banner, exit codes) is mock/command.ts and the serving mock/serve.ts,
// which the package @payment-service/mock (packages/mock/) runs on the bundle it carries; this
// script adds what only the repository has: the bundle must have been generated, and it should be
// the bundle of the current openapi/.
import { existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { bundleContract } from '../generator/steps/bundle.js';
import { DEFAULT_ROOT, REPO_ROOT } from '../generator/support/paths.js';
import { runMockCommand } from '../mock/command.js';

const SPEC = join(REPO_ROOT, 'generated', 'openapi.json');
const shown = relative(process.cwd(), SPEC) || SPEC;

await runMockCommand({
  command: 'npm run mock',
  separator: '-- ',
  argv: process.argv.slice(2),
  specPath: SPEC,
  shown,
  checkSpec: () => {
    if (existsSync(SPEC)) return;
    console.error(
      `${shown} is missing: run \`npm run generate\` first (it lints and bundles the contract into generated/).`,
    );
    process.exit(1);
  },
  // While Prism starts, check that generated/ is the bundle of the current openapi/ (a stale bundle
  // mocks an older contract; PAYMENT_API_ROOT names another contract root to compare with, as the
  // tests do).
  whileStarting: (specText) => {
    const contractRoot = process.env.PAYMENT_API_ROOT ? resolve(process.env.PAYMENT_API_ROOT) : DEFAULT_ROOT;
    const contractDir = `${relative(process.cwd(), dirname(contractRoot)) || '.'}/`;
    bundleContract({ root: contractRoot })
      .then(({ json }) => {
        if (json !== specText)
          console.warn(
            `warning: ${shown} is not the bundle of the current ${contractDir}; run \`npm run generate\` and restart to mock the current contract.`,
          );
      })
      .catch(() =>
        console.warn(
          `warning: ${contractDir} does not bundle right now (\`npm run generate\` says why); mocking ${shown} as it is.`,
        ),
      );
  },
});
