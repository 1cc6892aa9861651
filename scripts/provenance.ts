// npm run provenance [-- --root <file>] [-- --json]
// Counts what the contract documents vs. what it infers (x-provenance: inferred), on the bundle.
import { relative } from 'node:path';
import { countProvenance, formatProvenance } from '../generator/review/provenance.js';
import { BundleError, bundleContract } from '../generator/steps/bundle.js';
import { scriptArgs } from './args.js';

const args = scriptArgs();
if (args.help) {
  console.log('usage: tsx scripts/provenance.ts [--root openapi/openapi.yaml] [--json]');
  process.exit(0);
}
try {
  const { document } = await bundleContract({ root: args.root });
  const counts = countProvenance(document);
  console.log(
    args.json
      ? JSON.stringify(counts, null, 2)
      : formatProvenance(counts, `Provenance of ${relative(process.cwd(), args.root)} (bundled)`),
  );
} catch (err) {
  if (err instanceof BundleError) {
    console.error(err.message);
    process.exit(1);
  }
  throw err;
}
