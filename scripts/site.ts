// npm run site [-- --out site] [-- --generated generated]
//
// Assembles the folder the main branch's workflow publishes on GitHub Pages (generator/code-host/site.ts)
// from the output of `npm run generate`. Exit codes: 0 written; 1 something to publish is missing or
// the folder is not empty; 2 usage.
import { relative, resolve } from 'node:path';
import { CodeHostError } from '../generator/code-host/github.js';
import { assembleSite } from '../generator/code-host/site.js';
import { commandOptions } from '../generator/support/command-line.js';
import { REPO_ROOT } from '../generator/support/paths.js';

const USAGE = 'usage: tsx scripts/site.ts [--out site] [--generated generated]';
const values = commandOptions(
  {
    options: {
      out: { type: 'string', default: 'site' },
      generated: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  },
  USAGE,
);

const out = resolve(values.out);
try {
  const files = await assembleSite({
    generated: values.generated ? resolve(values.generated) : resolve(REPO_ROOT, 'generated'),
    out,
  });
  console.log(
    `wrote ${relative(process.cwd(), out) || '.'}: ${files.length} files\n${files.map((f) => `  ${f}`).join('\n')}`,
  );
} catch (err) {
  if (!(err instanceof CodeHostError)) throw err;
  console.error(`site: ${err.message}`);
  process.exitCode = 1;
}
