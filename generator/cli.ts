// npm run generate [-- --watch] [-- --force] [-- --root openapi/openapi.yaml --out generated/ --guides docs/guides/ --admin sandbox/admin/openapi.yaml]
// The command only: its arguments, its exit code (0 generated, 1 a step failed, 2 bad arguments).
// The pipeline is generate.ts; --watch is watch.ts.
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { generate } from './generate.js';
import type { GenerateOptions } from './pipeline.js';
import { commandOptions } from './support/command-line.js';
import { DEFAULT_OUT, DEFAULT_ROOT } from './support/paths.js';

const USAGE = `usage: npm run generate [-- --watch] [-- --force] [-- --root <file>] [-- --out <dir>] [-- --guides <dir>] [-- --admin <file>]

  --watch          regenerate on every change under the contract's folder, the guides and the
                   admin document's folder, re-running only what the change needs (Ctrl-C stops)
  --force          run every step, even those whose inputs are unchanged since a run that the
                   step cache (node_modules/.cache/payment-generate/) holds
  --root <file>    the contract's root (default openapi/openapi.yaml); in a copy of this
                   repository's layout (<dir>/openapi/openapi.yaml), <dir>'s docs/guides/,
                   sandbox/admin/openapi.yaml and redocly.yaml are used where it has them
  --out <dir>      where the files go (default generated/)
  --guides <dir>   the docs site's guides (default docs/guides/)
  --admin <file>   the sandbox's admin API document (default sandbox/admin/openapi.yaml)`;

/** The guides, admin document and Redocly config of the project that `root` is the contract of, where it has them. */
function projectPaths(root: string): Pick<GenerateOptions, 'guidesDir' | 'adminRoot' | 'redoclyConfig'> {
  if (root === DEFAULT_ROOT) return {};
  const project = dirname(dirname(root));
  const found = (path: string) => (existsSync(path) ? path : undefined);
  return {
    guidesDir: found(join(project, 'docs', 'guides')),
    adminRoot: found(join(project, 'sandbox', 'admin', 'openapi.yaml')),
    redoclyConfig: found(join(project, 'redocly.yaml')),
  };
}

const values = commandOptions(
  {
    options: {
      watch: { type: 'boolean', default: false },
      force: { type: 'boolean', default: false },
      root: { type: 'string' },
      out: { type: 'string' },
      guides: { type: 'string' },
      admin: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  },
  USAGE,
);
const root = values.root ? resolve(values.root) : DEFAULT_ROOT;
const project = projectPaths(root);
const paths = {
  root,
  out: values.out ? resolve(values.out) : DEFAULT_OUT,
  guidesDir: values.guides ? resolve(values.guides) : project.guidesDir,
  adminRoot: values.admin ? resolve(values.admin) : project.adminRoot,
  redoclyConfig: project.redoclyConfig,
};
if (values.watch) {
  const { watchAndGenerate } = await import('./watch.js');
  const watching = watchAndGenerate(paths);
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => void watching.close().then(() => process.exit(0)));
  await watching.ready;
} else {
  process.exitCode = (await generate({ ...paths, force: values.force })) ? 0 : 1; // exitCode: never cut output written to a pipe
}
