// The one pipeline from the contract to everything derived from it, as a library (the command is
// cli.ts, `npm run generate`):
//   lint → bundle → types → operations → resources → samples → admin → docs → admin-docs
// Every step starts as soon as its input exists (all but lint need only the bundle), so they run
// concurrently; a step whose inputs are unchanged since a run that stored it comes from the step
// cache instead (run-cache.ts). Files are written in pipeline order, each atomically, and only
// after the step and every step before it succeeded. The first failure stops the run with the
// tool's own message (file and line) and a false result; files of that step and later ones are
// untouched. Watch mode runs the same steps eagerly (runEagerly below).
import { join, resolve } from 'node:path';
import { Abandoned, type GenerateOptions, type PipelinePaths, STEPS, type StepName } from './pipeline.js';
import { failedLine, messageOf, skippedLine, stepLine, verdictLine } from './progress.js';
import { RunCache } from './run-cache.js';
import { type Done, type Scheduled, schedule, stepContext } from './schedule.js';
import { STEP_TABLE } from './step-table.js';
import { type Artifact, removeStale, writeArtifacts } from './support/artifacts.js';
import { CACHE_DIR } from './support/cache.js';
import { ADMIN_ROOT, DEFAULT_OUT, DEFAULT_ROOT } from './support/paths.js';
import { BundleError } from './support/step-error.js';

export { type GenerateOptions, STEPS, type StepName } from './pipeline.js';
export { StepError } from './support/step-error.js';

/** Watch mode: a step whose files are not written because a step they depend on failed. */
class NotWritten extends Error {}

interface Run {
  options: GenerateOptions;
  paths: PipelinePaths;
  selected: ReadonlySet<StepName>;
  steps: Scheduled[];
  /** settles once what the steps made is stored in the cache */
  stored: () => Promise<void>;
  writer: Writer;
  log: (line: string) => void;
  start: number;
}

export async function generate(options: GenerateOptions = {}): Promise<boolean> {
  const start = performance.now();
  const paths: PipelinePaths = {
    root: resolve(options.root ?? DEFAULT_ROOT),
    out: resolve(options.out ?? DEFAULT_OUT),
    adminRoot: resolve(options.adminRoot ?? ADMIN_ROOT),
    guidesDir: options.guidesDir,
    redoclyConfig: options.redoclyConfig,
  };
  const selected = options.steps ?? STEPS.filter((s) => s !== 'guides' && (s !== 'lint' || options.lint !== false));
  const cache = new RunCache(paths, { dir: options.cache ?? CACHE_DIR, force: options.force === true });
  const context = stepContext(paths, cache, options.signal, options.eager === true);
  // Watch mode: the bundle is under way before the step cache is read (stepContext says why).
  if (options.eager && selected.some((s) => STEP_TABLE[s].waitsFor === 'bundle'))
    context.document().catch(() => undefined);
  // Watch mode: the contract's steps other than types start once types.ts is written (or failed).
  let typesSettled: () => void = () => undefined;
  const typesDone = new Promise<void>((done) => (typesSettled = done));
  const typesFirst = options.eager === true && selected.includes('types');
  const gate = (step: StepName) =>
    typesFirst && STEP_TABLE[step].source === 'contract' && step !== 'types' ? typesDone : undefined;
  const { steps, stored } = schedule({ selected, context, cache, gate, beforeStep: options.beforeStep });
  const run: Run = {
    options,
    paths,
    selected: new Set(selected),
    steps,
    stored,
    writer: new Writer(paths.out, options.signal),
    log: options.log ?? ((line: string) => console.log(line)),
    start,
  };
  return options.eager ? runEagerly(run, typesSettled) : runInOrder(run);
}

/** One-shot: each step's files in pipeline order once it and every step before it succeeded; the first failure stops. */
async function runInOrder(run: Run): Promise<boolean> {
  const { log, options } = run;
  const done: Done[] = [];
  for (const { name, result } of run.steps) {
    let step: Done;
    try {
      step = await result;
    } catch (err) {
      log(failedLine(name));
      log(messageOf(err));
      log(`generate failed at step "${name}": files of this step and later steps were left untouched`);
      return false;
    }
    if (options.signal?.aborted) {
      log(`generate abandoned before step "${name}": files of this step and later steps were left untouched`);
      return false;
    }
    await run.writer.write(step.artifacts);
    done.push(step);
    log(stepLine(name, step));
  }
  // A full run removes files that no step produces any more (a partial run cannot know them all).
  if (!options.steps) {
    const kept = new Set(done.flatMap((r) => r.artifacts.map((a) => join(run.paths.out, a.path))));
    for (const folder of new Set(done.flatMap((r) => (r.owns ? [r.owns] : []))))
      await removeStale(join(run.paths.out, folder), kept);
  }
  await run.stored();
  log(verdictLine(true, 'done', performance.now() - run.start));
  return true;
}

/**
 * Watch mode: each step's files as soon as it is ready (docs once lint and the guide links
 * passed), every step reported, in pipeline order; an abandoned run reports at once.
 */
async function runEagerly(run: Run, typesSettled: () => void): Promise<boolean> {
  const { log, options } = run;
  const { signal } = options;
  const gates = run.steps.filter((s) => s.name === 'lint' || s.name === 'guides');
  const written = run.steps.map(({ name, result }) => {
    const step = result.then(async (done) => {
      if (name === 'docs')
        for (const gate of gates)
          await gate.result.catch(() => Promise.reject(new NotWritten(`not written: ${gate.name} failed`)));
      await run.writer.write(done.artifacts);
      options.onWritten?.(name);
      return { done, writtenMs: performance.now() - run.start };
    });
    step.catch(() => undefined); // reported in order below
    if (name === 'types') step.then(typesSettled, typesSettled);
    return { name, step };
  });
  const abandoned = new Promise<never>((_, reject) => {
    if (signal?.aborted) reject(new Abandoned());
    else signal?.addEventListener('abort', () => reject(new Abandoned()), { once: true });
  });
  abandoned.catch(() => undefined);

  let ok = true;
  const reported = new Set<unknown>();
  for (const { name, step } of written) {
    try {
      // an abandoned run reports at once: its steps still running write nothing
      const { done, writtenMs } = await Promise.race([step, abandoned]);
      log(stepLine(name, done, writtenMs));
    } catch (err) {
      ok = false;
      log(eagerFailure(run, name, err, reported));
      reported.add(err);
    }
  }
  await run.writer.settled();
  await run.stored();
  const verdict = ok ? 'done' : signal?.aborted ? 'abandoned' : 'failed';
  log(verdictLine(ok, verdict, performance.now() - run.start));
  return ok;
}

/** A step that failed in watch mode; one that only failed because the bundle did says so in one line. */
function eagerFailure(run: Run, name: StepName, err: unknown, reported: ReadonlySet<unknown>): string {
  if (run.options.signal?.aborted) return skippedLine(name, 'abandoned: a newer change supersedes this build');
  if (err instanceof NotWritten) return skippedLine(name, err.message);
  if (err instanceof BundleError && name !== 'bundle')
    return skippedLine(name, 'not run: the contract does not bundle');
  if (reported.has(err)) return skippedLine(name, 'not run: the same problem as above');
  if (err instanceof BundleError && run.selected.has('lint'))
    return `${failedLine(name)} the contract does not bundle (lint above says where)`;
  return failedLine(name, messageOf(err));
}

/**
 * Writes a step's files together, unless the run was abandoned first: writes under way when the
 * signal aborts are finished (each file is atomic), none starts after it.
 */
class Writer {
  private readonly writing = new Set<Promise<void>>();

  constructor(
    private readonly out: string,
    private readonly signal?: AbortSignal,
  ) {}

  write(artifacts: readonly Artifact[]): Promise<void> {
    if (this.signal?.aborted) return Promise.reject(new Abandoned());
    const w = writeArtifacts(this.out, artifacts);
    this.writing.add(w);
    return w.finally(() => this.writing.delete(w));
  }

  async settled(): Promise<void> {
    await Promise.allSettled(this.writing);
  }
}
