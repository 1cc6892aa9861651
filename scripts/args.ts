import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_OUT, DEFAULT_ROOT } from '../generator/support/paths.js';

/** Options shared by the contract scripts: --root <file>, --out <dir>, --json. */
export function scriptArgs(argv = process.argv.slice(2)) {
  const { values } = parseArgs({
    args: argv,
    options: {
      root: { type: 'string' },
      out: { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  return {
    root: values.root ? resolve(values.root) : DEFAULT_ROOT,
    out: values.out ? resolve(values.out) : DEFAULT_OUT,
    json: values.json ?? false,
    help: values.help ?? false,
  };
}
