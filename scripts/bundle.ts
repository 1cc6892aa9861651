// npm run bundle [-- --root <file>] [-- --out <dir>]
// Bundles the multi-file contract into <out>/openapi.yaml and <out>/openapi.json.
import { relative } from 'node:path';
import { BundleError, bundleContract, writeBundle } from '../generator/bundle.js';
import { scriptArgs } from './args.js';

const args = scriptArgs();
if (args.help) {
  console.log('usage: tsx scripts/bundle.ts [--root openapi/openapi.yaml] [--out generated/]');
  process.exit(0);
}
try {
  const result = await bundleContract({ root: args.root });
  // Written only after the whole bundle succeeded: a failure leaves the previous files intact.
  const { yamlPath, jsonPath } = await writeBundle(result, args.out);
  console.log(`bundled ${relative(process.cwd(), args.root)} -> ${relative(process.cwd(), yamlPath)}, ${relative(process.cwd(), jsonPath)}`);
} catch (err) {
  if (err instanceof BundleError) {
    console.error(err.message);
    console.error('bundle failed; output files left untouched');
    process.exit(1);
  }
  throw err;
}
