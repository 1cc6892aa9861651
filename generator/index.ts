// npm run generate [-- --watch]
// The one pipeline from the contract to everything derived from it:
//   lint → bundle → types → operations → resources → docs
// Every step starts as soon as its input exists (all but lint need only the bundle), so they run
// concurrently; their files are written in pipeline order, each atomically, and only after the
// step and every step before it succeeded. The first failure stops the run with the tool's own
// message (file and line) and a non-zero exit; files of that step and later ones are untouched.
import { watch } from 'node:fs';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadAdminDocument, renderAdminDocs, renderAdminTypes } from './admin.js';
import { BundleError, bundleContract } from './bundle.js';
import { buildDocs } from './docs.js';
import { writeFileAtomic } from './fs.js';
import { formatProblem, lintContract } from './lint.js';
import { renderOperations } from './operations.js';
import { renderResources } from './resources.js';
import { DEFAULT_OUT, DEFAULT_ROOT, REPO_ROOT } from './paths.js';
import { renderTypes } from './types.js';

export class StepError extends Error {}

interface Artifact {
  /** path relative to the output directory */
  path: string;
  content: string | Uint8Array;
}

interface StepResult {
  artifacts: Artifact[];
  detail?: string;
  /** files under this folder of the output that the step no longer produces are removed */
  owns?: string;
}

export interface GenerateOptions {
  root?: string;
  out?: string;
  /** false skips the lint step (the drift test regenerates without re-linting) */
  lint?: boolean;
  log?: (line: string) => void;
}

export async function generate(options: GenerateOptions = {}): Promise<boolean> {
  const root = options.root ?? DEFAULT_ROOT;
  const out = options.out ?? DEFAULT_OUT;
  const log = options.log ?? ((line: string) => console.log(line));
  const start = performance.now();

  const bundling = bundleContract({ root });
  const fromBundle = <T>(f: (doc: Record<string, unknown>) => Promise<T> | T) => bundling.then((b) => f(b.document));

  const steps: [string, Promise<StepResult & { ms: number }>][] = [];
  // A step's time runs from the moment its input is ready (the bundle, for all but lint).
  const timed = (name: string, work: () => Promise<StepResult>, input: Promise<unknown> = Promise.resolve()) => {
    const p = input.then(async () => {
      const t0 = performance.now();
      const r = await work();
      return { ...r, ms: performance.now() - t0 };
    });
    p.catch(() => undefined); // reported in order below
    steps.push([name, p]);
  };

  if (options.lint !== false) {
    timed('lint', async () => {
      const result = await lintContract({ root, out, bundle: bundling });
      if (!result.ok) throw new StepError(result.problems.map(formatProblem).join('\n'));
      return { artifacts: [], detail: '0 errors, 0 warnings' };
    });
  }
  timed('bundle', async () => {
    const b = await bundling;
    return { artifacts: [{ path: 'openapi.yaml', content: b.yaml }, { path: 'openapi.json', content: b.json }] };
  });
  timed('types', async () => ({ artifacts: [{ path: 'types.ts', content: await fromBundle(renderTypes) }] }), bundling);
  timed('operations', async () => {
    const content = await fromBundle(renderOperations);
    return { artifacts: [{ path: 'operations.ts', content }], detail: `${(content.match(/^ {2}\w+: \{$/gm) ?? []).length} operations` };
  }, bundling);
  timed('resources', async () => ({ artifacts: [{ path: 'resources.ts', content: await fromBundle(renderResources) }] }), bundling);
  // The sandbox's admin API document: its types for the sandbox's CLI (its page: the docs step).
  const admin = loadAdminDocument();
  timed('admin', async () => ({ artifacts: [{ path: 'admin/types.ts', content: await renderAdminTypes(await admin) }] }), admin);
  timed('docs', async () => {
    const document = (await bundling).document;
    const tmp = await mkdtemp(join(tmpdir(), 'generate-docs-'));
    try {
      const { files } = await buildDocs(document, tmp);
      const artifacts: Artifact[] = await Promise.all(
        files.map(async (f: string) => ({ path: relative(tmp, f).split('\\').join('/'), content: await readFile(f) })),
      );
      artifacts.push(...(await renderAdminDocs(await admin)));
      return { artifacts, owns: 'docs' };
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  }, bundling);

  for (const [name, promise] of steps) {
    let result: StepResult & { ms: number };
    try {
      result = await promise;
    } catch (err) {
      log(`✖ ${name.padEnd(10)}`);
      const message = err instanceof StepError || err instanceof BundleError ? err.message : err instanceof Error ? (err.stack ?? err.message) : String(err);
      log(message);
      log(`generate failed at step "${name}": files of this step and later steps were left untouched`);
      return false;
    }
    for (const a of result.artifacts) await writeFileAtomic(join(out, a.path), a.content);
    if (result.owns) await removeStale(join(out, result.owns), new Set(result.artifacts.map((a) => join(out, a.path))));
    const files = result.artifacts.length ? `  ${result.artifacts.map((a) => a.path).join(', ')}` : '';
    log(`✔ ${name.padEnd(10)} ${fmt(result.ms)}${result.detail ? `  ${result.detail}` : ''}${files}`);
  }
  log(`✔ ${'done'.padEnd(10)} ${fmt(performance.now() - start)}`);
  return true;
}

async function removeStale(dir: string, keep: Set<string>): Promise<void> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  for (const e of entries) {
    const full = join(e.parentPath, e.name);
    if (e.isFile() && !keep.has(full)) await rm(full);
  }
}

const fmt = (ms: number) => `${Math.round(ms)} ms`.padStart(8);

/** Regenerates on every change under openapi/ (and the docs guides), until interrupted. */
async function watchAndGenerate(): Promise<void> {
  await generate();
  const folders = ['openapi', 'docs'].map((f) => join(REPO_ROOT, f));
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  let again = false;
  const run = async () => {
    if (running) { again = true; return; }
    running = true;
    console.log(`\n↻ change detected, regenerating (${new Date().toLocaleTimeString()})`);
    await generate();
    running = false;
    if (again) { again = false; void run(); }
  };
  for (const folder of folders) {
    // recursive fs.watch works on Linux from Node 20; editors fire bursts of events: debounce
    watch(folder, { recursive: true }, () => {
      clearTimeout(timer);
      timer = setTimeout(() => void run(), 150);
    }).on('error', () => undefined);
  }
  console.log(`watching ${folders.map((f) => relative(process.cwd(), f) + '/').join(' and ')} — Ctrl+C to stop`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  if (process.argv.includes('--watch')) await watchAndGenerate();
  else process.exitCode = (await generate()) ? 0 : 1; // exitCode: never cut output written to a pipe
}
