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

/** The root of the contract under test: PAYMENT_API_ROOT, else openapi/openapi.yaml. */
const rootUnderTest = () => (process.env.PAYMENT_API_ROOT ? resolve(process.env.PAYMENT_API_ROOT) : DEFAULT_ROOT);

/**
 * The bundle of the contract under test, bundled once per run; when it does not bundle, the run
 * stops here: the reason on stderr, exit code 1.
 */
export async function sharedBundle(): Promise<Record<string, unknown>> {
  const root = rootUnderTest();
  const bundled = await once(`bundle ${root}`, () => bundleOrWhyNot(root));
  if ('document' in bundled) return bundled.document;
  process.stderr.write(bundled.why);
  // Exit here: thrown, the error would come after vitest's misleading "No test files found".
  process.exit(1);
}

/** The bundle of `root`, or why it does not bundle: lint's first problem, up to five more, and what to do. */
export async function bundleOrWhyNot(root: string): Promise<{ document: Record<string, unknown> } | { why: string }> {
  try {
    return { document: (await bundleContract({ root })).document };
  } catch (err) {
    if (!(err instanceof BundleError)) throw err;
    const lines = whyItDoesNotBundle(root, err);
    return {
      why:
        `The contract does not bundle: ${lines[0]} — fix it, then npm run generate\n` +
        lines
          .slice(1, 6)
          .map((l) => `  also: ${l}\n`)
          .join('') +
        '(npm run lint lists every problem; no test ran)\n',
    };
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
