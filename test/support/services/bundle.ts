// The contract bundled once per run, for the root's global setup (which hands it to every test file)
// and the services that serve it (Prism). PAYMENT_API_ROOT points it at another root (the failure
// tests use a broken copy). A contract that does not bundle stops the run here with one clear
// message, before vitest's own "No test files found" and stack trace could bury it.
import { relative, resolve } from 'node:path';
import { checkSourceSyntax } from '../../../generator/lint/source-syntax.js';
import { BundleError, bundleContract } from '../../../generator/steps/bundle.js';
import { DEFAULT_ROOT } from '../../../generator/support/paths.js';
import { once } from './shared.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The contract bundled from openapi/ (not the committed generated/ copy). */
    bundle: Record<string, unknown>;
  }
}

/** The bundle of the contract under test; the run stops with one message when it does not bundle. */
export async function sharedBundle(): Promise<Record<string, unknown>> {
  const root = process.env.PAYMENT_API_ROOT ? resolve(process.env.PAYMENT_API_ROOT) : DEFAULT_ROOT;
  try {
    return await once('bundle', async () => (await bundleContract({ root })).document);
  } catch (err) {
    if (!(err instanceof BundleError)) throw err;
    const lines = whyItDoesNotBundle(root, err);
    process.stderr.write(
      `The contract does not bundle: ${lines[0]} — fix it, then npm run generate\n` +
        lines
          .slice(1, 6)
          .map((l) => `  also: ${l}\n`)
          .join('') +
        '(npm run lint lists every problem; no test ran)\n',
    );
    // Exit here: thrown, the error would come after vitest's misleading "No test files found".
    process.exit(1);
  }
}

/** lint's `file:line:col error rule message` lines: a YAML mistake where it is (with its hint), else the bundler's problems, each once. */
function whyItDoesNotBundle(root: string, err: BundleError): string[] {
  const syntax = checkSourceSyntax(root).map(
    (p) => `${relative(process.cwd(), p.file)}:${p.line}:${p.col} error yaml-syntax ${p.message}`,
  );
  if (syntax.length > 0) return syntax;
  const lines = [...new Set(err.problems.map((p) => `${p.file}:${p.line}:${p.col} error bundle ${p.message}`))];
  return lines.length > 0 ? lines : [err.message.split('\n')[0]!];
}
