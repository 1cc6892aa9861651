// The one pipeline from the contract to everything derived from it, as a library (the command is
// cli.ts, `npm run generate`):
//   lint → bundle → types → operations → resources → samples → admin → docs → admin-docs
// Every step starts as soon as its input exists (all but lint need only the bundle), so they run
// concurrently; their files are written in pipeline order, each atomically, and only after the
// step and every step before it succeeded. The first failure stops the run with the tool's own
// message (file and line) and a false result; files of that step and later ones are untouched.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { formatProblem, lintContract } from './lint/lint.js';
import { type GenerateOptions, STEPS, type StepName } from './pipeline.js';
import { AdminDocumentError, loadAdminDocument, renderAdminDocs, renderAdminTypes } from './steps/admin.js';
import { BundleError, type BundleResult, bundleContract } from './steps/bundle.js';
import { renderCodeSamples, SAMPLES_DIR } from './steps/code-samples.js';
import { buildDocs } from './steps/docs.js';
import { checkGuideLinks } from './steps/guide-links.js';
import { renderOperations } from './steps/operations.js';
import { renderResources } from './steps/resources.js';
import { renderTypes } from './steps/types.js';
import { writeFileAtomic } from './support/fs.js';
import { ADMIN_ROOT, DEFAULT_OUT, DEFAULT_ROOT, GUIDES_DIR } from './support/paths.js';

export { type GenerateOptions, STEPS, type StepName } from './pipeline.js';

export class StepError extends Error {}
/** Watch mode: a step whose files are not written because a step they depend on failed. */
class NotWritten extends Error {}
/** A step of a run whose signal was aborted: it writes nothing. */
class Abandoned extends Error {}

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

export async function generate(options: GenerateOptions = {}): Promise<boolean> {
  const root = options.root ?? DEFAULT_ROOT;
  const out = options.out ?? DEFAULT_OUT;
  const log = options.log ?? ((line: string) => console.log(line));
  const eager = options.eager === true;
  const selected = new Set<StepName>(
    options.steps ?? STEPS.filter((s) => s !== 'guides' && (s !== 'lint' || options.lint !== false)),
  );
  const adminRoot = options.adminRoot ?? ADMIN_ROOT;
  const { signal } = options;
  const start = performance.now();

  // Started by the first step that needs it: an admin-only run bundles nothing.
  let bundlePromise: Promise<BundleResult> | undefined;
  const bundling = () => (bundlePromise ??= options.bundle ?? bundleContract({ root, ...(signal ? { signal } : {}) }));
  const fromBundle = <T>(f: (doc: Record<string, unknown>) => Promise<T> | T) => bundling().then((b) => f(b.document));
  let adminPromise: ReturnType<typeof loadAdminDocument> | undefined;
  const admin = () => (adminPromise ??= loadAdminDocument(adminRoot));
  // Watch mode: types first; the other steps start once types.ts is written (or failed).
  let typesSettled: () => void = () => undefined;
  const typesDone = new Promise<void>((done) => (typesSettled = done));
  const afterTypes = () => (eager && selected.has('types') ? typesDone : bundling());

  type Done = StepResult & { ms: number; writtenMs?: number };
  const steps: [StepName, Promise<Done>][] = [];
  // Writes under way when the signal aborts are finished (each file is atomic, a step's files are
  // written together); none starts after it.
  const writing = new Set<Promise<void>>();
  const write = (r: StepResult): Promise<void> => {
    if (signal?.aborted) return Promise.reject(new Abandoned());
    const w = (async () => {
      for (const a of r.artifacts) await writeFileAtomic(join(out, a.path), a.content);
    })();
    writing.add(w);
    return w.finally(() => writing.delete(w));
  };
  const abandoned = new Promise<never>((_, reject) => {
    if (signal?.aborted) reject(new Abandoned());
    else signal?.addEventListener('abort', () => reject(new Abandoned()), { once: true });
  });
  abandoned.catch(() => undefined);
  // Between a step's stages: lets the event loop deliver an abort (a watcher's event) first.
  const checkpoint = async () => {
    if (!signal) return;
    await new Promise((r) => setImmediate(r));
    if (signal.aborted) throw new Abandoned();
  };
  // A step's time runs from the moment its input is ready (the bundle, for all but lint).
  const timed = (
    name: StepName,
    work: () => Promise<StepResult>,
    input: () => Promise<unknown> = () => Promise.resolve(),
  ) => {
    if (!selected.has(name)) return;
    const p = input().then(async (): Promise<Done> => {
      await checkpoint();
      await options.beforeStep?.(name, signal);
      const t0 = performance.now();
      const r = await work();
      await checkpoint();
      const ms = performance.now() - t0;
      if (!eager) return { ...r, ms };
      if (name === 'docs') {
        const gates = steps.filter(([n]) => n === 'lint' || n === 'guides');
        for (const [n, gate] of gates)
          await gate.catch(() => Promise.reject(new NotWritten(`not written: ${n} failed`)));
      }
      await write(r);
      options.onWritten?.(name);
      return { ...r, ms, writtenMs: performance.now() - start };
    });
    p.catch(() => undefined); // reported in order below
    if (name === 'types') p.then(typesSettled, typesSettled);
    steps.push([name, p]);
  };

  timed(
    'lint',
    async () => {
      const result = await lintContract({
        root,
        out,
        bundle: bundling(),
        ...(signal ? { signal } : {}),
        ...(options.guidesDir ? { guidesDir: options.guidesDir } : {}),
        ...(options.redoclyConfig ? { redoclyConfig: options.redoclyConfig } : {}),
      });
      if (!result.ok) throw new StepError(result.problems.map(formatProblem).join('\n'));
      return { artifacts: [], detail: '0 errors, 0 warnings' };
    },
    eager ? afterTypes : undefined,
  );
  timed(
    'guides',
    async () => {
      const problems = checkGuideLinks((await bundling()).document, options.guidesDir ?? GUIDES_DIR);
      if (problems.length)
        throw new StepError(
          problems
            .map((p) =>
              formatProblem({ tool: 'guides', severity: 'error', ...p, file: relative(process.cwd(), p.file) }),
            )
            .join('\n'),
        );
      return { artifacts: [], detail: 'every guide link leads somewhere' };
    },
    afterTypes,
  );
  timed('bundle', async () => {
    const b = await bundling();
    return {
      artifacts: [
        { path: 'openapi.yaml', content: b.yaml },
        { path: 'openapi.json', content: b.json },
      ],
    };
  });
  timed('types', async () => ({ artifacts: [{ path: 'types.ts', content: await fromBundle(renderTypes) }] }), bundling);
  timed(
    'operations',
    async () => {
      const content = await fromBundle(renderOperations);
      return {
        artifacts: [{ path: 'operations.ts', content }],
        detail: `${(content.match(/^ {2}\w+: \{$/gm) ?? []).length} operations`,
      };
    },
    afterTypes,
  );
  timed(
    'resources',
    async () => ({ artifacts: [{ path: 'resources.ts', content: await fromBundle(renderResources) }] }),
    afterTypes,
  );
  // curl and SDK samples from the contract's examples (the docs step shows the same samples).
  timed(
    'samples',
    async () => {
      const artifacts = await fromBundle(renderCodeSamples);
      return {
        artifacts,
        owns: SAMPLES_DIR,
        detail: `${artifacts.filter((a) => a.path.endsWith('.sh')).length} examples, curl and TypeScript`,
      };
    },
    afterTypes,
  );
  // The sandbox's admin API document: its types for the sandbox's CLI, and its page.
  timed(
    'admin',
    async () => ({ artifacts: [{ path: 'admin/types.ts', content: await renderAdminTypes(await admin()) }] }),
    admin,
  );
  timed(
    'docs',
    async () => {
      const document = (await bundling()).document;
      const tmp = await mkdtemp(join(tmpdir(), 'generate-docs-'));
      try {
        const { files } = await buildDocs(document, tmp, {
          ...(options.guidesDir ? { guidesDir: options.guidesDir } : {}),
          ...(signal ? { signal } : {}),
        });
        const artifacts: Artifact[] = await Promise.all(
          files.map(async (f: string) => ({
            path: relative(tmp, f).split('\\').join('/'),
            content: await readFile(f),
          })),
        );
        return { artifacts, owns: 'docs' };
      } finally {
        await rm(tmp, { recursive: true, force: true });
      }
    },
    afterTypes,
  );
  timed(
    'admin-docs',
    async () => ({ artifacts: await renderAdminDocs(await admin(), adminRoot), owns: 'docs' }),
    admin,
  );

  const line = (name: string, r: Done) => {
    // A folder of many files (samples/) as one entry.
    const files =
      r.artifacts.length > 5 && r.owns
        ? `  ${r.owns}/ (${r.artifacts.length} files)`
        : r.artifacts.length
          ? `  ${r.artifacts.map((a) => a.path).join(', ')}`
          : '';
    const at = r.writtenMs !== undefined && r.artifacts.length ? ` (written at ${Math.round(r.writtenMs)} ms)` : '';
    return `✔ ${name.padEnd(10)} ${fmt(r.ms)}${r.detail ? `  ${r.detail}` : ''}${files}${at}`;
  };
  const messageOf = (err: unknown) =>
    err instanceof StepError || err instanceof BundleError || err instanceof AdminDocumentError
      ? err.message
      : err instanceof Error
        ? (err.stack ?? err.message)
        : String(err);

  if (eager) {
    // Every step reported; a step that only failed because the bundle did says so in one line.
    let ok = true;
    const reported = new Set<unknown>();
    for (const [name, promise] of steps) {
      try {
        // an abandoned run reports at once: its steps still running write nothing
        log(line(name, await Promise.race([promise, abandoned])));
      } catch (err) {
        ok = false;
        if (signal?.aborted) log(`– ${name.padEnd(10)} abandoned: a newer change supersedes this build`);
        else if (err instanceof NotWritten) log(`– ${name.padEnd(10)} ${err.message}`);
        else if (err instanceof BundleError && name !== 'bundle')
          log(`– ${name.padEnd(10)} not run: the contract does not bundle`);
        else if (reported.has(err)) log(`– ${name.padEnd(10)} not run: the same problem as above`);
        else if (err instanceof BundleError && selected.has('lint'))
          log(`✖ ${name.padEnd(10)} the contract does not bundle (lint above says where)`);
        else log(`✖ ${name.padEnd(10)}\n${messageOf(err)}`);
        reported.add(err);
      }
    }
    await Promise.allSettled(writing);
    const verdict = ok ? 'done' : signal?.aborted ? 'abandoned' : 'failed';
    log(`${ok ? '✔' : '✖'} ${verdict.padEnd(10)} ${fmt(performance.now() - start)}`);
    return ok;
  }

  const done: Done[] = [];
  for (const [name, promise] of steps) {
    let result: Done;
    try {
      result = await promise;
    } catch (err) {
      log(`✖ ${name.padEnd(10)}`);
      log(messageOf(err));
      log(`generate failed at step "${name}": files of this step and later steps were left untouched`);
      return false;
    }
    if (signal?.aborted) {
      log(`generate abandoned before step "${name}": files of this step and later steps were left untouched`);
      return false;
    }
    await write(result);
    done.push(result);
    log(line(name, result));
  }
  // A full run removes files that no step produces any more (a partial run cannot know them all).
  if (!options.steps) {
    for (const folder of new Set(done.flatMap((r) => (r.owns ? [r.owns] : [])))) {
      await removeStale(join(out, folder), new Set(done.flatMap((r) => r.artifacts.map((a) => join(out, a.path)))));
    }
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
