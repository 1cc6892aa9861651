// The steps of the pipeline: for each, what it is made from, what its work waits for, what its
// output depends on (its cache key's inputs) and the work itself. The modules that do the work are
// imported when a step runs, so that a run served from the cache loads none of them.
//
// Why the keys are complete: a step's output is a function of the files its work reads, the code
// that reads them and the settings it is given, and its key hashes all three.
//  - The files: each step lists them below; every path the work opens is one of them or under one
//    of the trees (the contract's folder with every file outside it that a `$ref` names; the
//    guides; the Arazzo workflows; the docs console's vendored bundle; the admin document's folder
//    and its Redoc options; the lint configuration).
//  - The code: TOOLCHAIN (support/toolchain.ts), shared by every key: generator/ and tooling/,
//    package.json, the lockfiles (every package by version and integrity), tsconfig.json and the
//    Node.js version.
//  - The settings: what the output says of the run's paths (the bundle's header names its root),
//    in `values`. A key hashes contents, not where they are: a copy of the project has the keys of
//    the original, and a step's files are the same wherever they are written.
import { readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import type { JsonObject } from '../tooling/openapi/walker.js';
import { lintConfiguration } from './lint/configuration.js';
import type { PipelinePaths, StepContext, StepName, StepResult } from './pipeline.js';
import type { StepInputs } from './support/inputs.js';
import {
  ADMIN_DOCS_CONFIG,
  ARAZZO_DIR,
  DEFAULT_ROOT,
  GUIDES_DIR,
  REDOCLY_CONFIG,
  REPO_ROOT,
  SCALAR_VENDOR_DIR,
} from './support/paths.js';
import { StepError } from './support/step-error.js';

export interface StepDefinition {
  /** What the step is made from: in watch mode, the contract's steps other than types wait for types.ts. */
  source: 'contract' | 'admin';
  /** What the work needs before it starts (`bundle`: the bundled document); lint starts at once (Redocly lints the source while the bundle is made). */
  waitsFor: 'bundle' | 'admin' | 'nothing';
  /** What the output depends on besides the toolchain. */
  inputs(paths: PipelinePaths): StepInputs;
  work(context: StepContext): Promise<StepResult>;
}

const none: StepInputs = { files: [], trees: [], contracts: [], values: [] };
const inputs = (more: Partial<StepInputs>): StepInputs => ({ ...none, ...more });

/** The bundled document: the contract and the Redocly config bundleContract() reads. */
const bundleInputs = (paths: PipelinePaths): StepInputs => inputs({ contracts: [paths.root], files: [REDOCLY_CONFIG] });

/** The guides lint checks: those given, else the repository's for its own contract, else none (as lintContract()). */
const lintedGuides = (paths: PipelinePaths) =>
  paths.guidesDir ?? (resolve(paths.root) === resolve(DEFAULT_ROOT) ? GUIDES_DIR : undefined);

function lintInputs(paths: PipelinePaths): StepInputs {
  const bundle = bundleInputs(paths);
  const configuration = lintConfiguration(paths.redoclyConfig ?? REDOCLY_CONFIG);
  const guides = lintedGuides(paths);
  return inputs({
    contracts: bundle.contracts,
    files: [...bundle.files, ...configuration.files],
    trees: [...(configuration.functionsDir ? [configuration.functionsDir] : []), ...(guides ? [guides] : [])],
    values: [`guide links ${guides ? 'checked' : 'not checked'}`],
  });
}

function docsInputs(paths: PipelinePaths): StepInputs {
  const bundle = bundleInputs(paths);
  const guides = paths.guidesDir ?? GUIDES_DIR;
  // The console's Scalar bundle is vendored outside the toolchain's folders: its folder is an input.
  return inputs({ ...bundle, trees: [guides, ARAZZO_DIR, SCALAR_VENDOR_DIR] });
}

/** The admin document is one file read as it is; as a contract, a `$ref` added to it would be followed too. */
const adminInputs = (paths: PipelinePaths) => inputs({ contracts: [paths.adminRoot] });

/** The data file schema's source, beside the admin document. */
const dataSchemaSource = (paths: PipelinePaths) => join(dirname(paths.adminRoot), 'data-file.schema.json');

export const STEP_TABLE: Record<StepName, StepDefinition> = {
  lint: {
    source: 'contract',
    waitsFor: 'nothing',
    inputs: lintInputs,
    async work({ paths, signal, bundle }) {
      const { formatProblem, lintContract } = await import('./lint/lint.js');
      const result = await lintContract({
        root: paths.root,
        out: paths.out,
        bundle: bundle(),
        signal,
        guidesDir: paths.guidesDir,
        redoclyConfig: paths.redoclyConfig,
      });
      if (!result.ok) throw new StepError(result.problems.map(formatProblem).join('\n'));
      return { artifacts: [], detail: '0 errors, 0 warnings' };
    },
  },
  guides: {
    source: 'contract',
    waitsFor: 'bundle',
    inputs: (paths) => {
      const bundle = bundleInputs(paths);
      const guides = paths.guidesDir ?? GUIDES_DIR;
      return inputs({ ...bundle, trees: [guides] });
    },
    async work({ paths, document }) {
      const { checkGuideLinks } = await import('./steps/guide-links.js');
      const { formatProblem } = await import('./lint/problems.js');
      const problems = checkGuideLinks((await document()).document, paths.guidesDir ?? GUIDES_DIR);
      if (problems.length > 0) {
        const file = (p: { file: string }) => relative(process.cwd(), p.file);
        throw new StepError(
          problems.map((p) => formatProblem({ tool: 'guides', severity: 'error', ...p, file: file(p) })).join('\n'),
        );
      }
      return { artifacts: [], detail: 'every guide link leads somewhere' };
    },
  },
  bundle: {
    source: 'contract',
    waitsFor: 'nothing',
    // openapi.yaml's header names the root, relative to the repository
    inputs: (paths) => ({ ...bundleInputs(paths), values: [`header ${relative(REPO_ROOT, paths.root)}`] }),
    async work({ bundle }) {
      const b = await bundle();
      return {
        artifacts: [
          { path: 'openapi.yaml', content: b.yaml },
          { path: 'openapi.json', content: b.json },
        ],
      };
    },
  },
  types: {
    source: 'contract',
    waitsFor: 'bundle',
    inputs: bundleInputs,
    async work({ document }) {
      const { renderTypes } = await import('./steps/types.js');
      return { artifacts: [{ path: 'types.ts', content: await renderTypes((await document()).document) }] };
    },
  },
  operations: {
    source: 'contract',
    waitsFor: 'bundle',
    inputs: bundleInputs,
    async work({ document }) {
      const { renderOperations } = await import('./steps/operations.js');
      const content = renderOperations((await document()).document);
      return {
        artifacts: [{ path: 'operations.ts', content }],
        detail: `${(content.match(/^ {2}\w+: \{$/gm) ?? []).length} operations`,
      };
    },
  },
  resources: {
    source: 'contract',
    waitsFor: 'bundle',
    inputs: bundleInputs,
    async work({ document }) {
      const { renderResources } = await import('./steps/resources.js');
      return { artifacts: [{ path: 'resources.ts', content: renderResources((await document()).document) }] };
    },
  },
  // curl and SDK samples from the contract's examples (the docs step shows the same samples).
  samples: {
    source: 'contract',
    waitsFor: 'bundle',
    inputs: bundleInputs,
    async work({ document }) {
      const { renderCodeSamples, SAMPLES_DIR } = await import('./steps/code-samples.js');
      const artifacts = renderCodeSamples((await document()).document);
      return {
        artifacts,
        owns: SAMPLES_DIR,
        detail: `${artifacts.filter((a) => a.path.endsWith('.sh')).length} examples, curl and TypeScript`,
      };
    },
  },
  // The sandbox's admin API document: its types for the sandbox's CLI, the document as JSON for the
  // sandbox to read, and its page.
  admin: {
    source: 'admin',
    waitsFor: 'admin',
    inputs: adminInputs,
    async work({ admin }) {
      const { renderAdminTypes } = await import('./steps/admin.js');
      const document = await admin();
      return {
        artifacts: [
          { path: 'admin/types.ts', content: await renderAdminTypes(document) },
          // what the sandbox reads at its start: JSON, which parses in a millisecond where the YAML takes 150
          { path: 'admin/openapi.json', content: `${JSON.stringify(document, null, 2)}\n` },
        ],
      };
    },
  },
  // The JSON Schema of the sandbox's data files: its source with the contract's schemas it names.
  'data-schema': {
    source: 'contract',
    waitsFor: 'bundle',
    inputs: (paths) => {
      const bundle = bundleInputs(paths);
      return inputs({ ...bundle, files: [...bundle.files, dataSchemaSource(paths)] });
    },
    async work({ paths, document }) {
      const { renderDataSchema } = await import('./steps/data-schema.js');
      const path = dataSchemaSource(paths);
      const text = await readFile(path, 'utf8');
      const content = renderDataSchema({ path, text }, (await document()).document as JsonObject);
      return { artifacts: [{ path: 'admin/data.schema.json', content }] };
    },
  },
  docs: {
    source: 'contract',
    waitsFor: 'bundle',
    inputs: docsInputs,
    async work({ paths, signal, bundle }) {
      const [{ renderDocs }, { portableYamlOf }] = await Promise.all([
        import('./steps/docs.js'),
        import('./steps/bundle.js'),
      ]);
      const b = await bundle();
      const artifacts = await renderDocs(b.document, {
        guidesDir: paths.guidesDir,
        signal,
        portableYaml: portableYamlOf(b),
      });
      return { artifacts, owns: 'docs' };
    },
  },
  'admin-docs': {
    source: 'admin',
    waitsFor: 'admin',
    inputs: (paths) => inputs({ ...adminInputs(paths), files: [ADMIN_DOCS_CONFIG] }),
    async work({ paths, admin }) {
      const { renderAdminDocs } = await import('./steps/admin.js');
      return { artifacts: await renderAdminDocs(await admin(), paths.adminRoot), owns: 'docs' };
    },
  },
};
