// Spectral on the bundle: loading the ruleset (.spectral.yaml, the local rulesets it extends, the
// house rules in TypeScript) and running it (in lint's worker thread, checks.ts).
//
// Loading a ruleset means bundling it with Rollup (the ruleset migrated to a module, the house
// rules compiled by esbuild), most of a second; the bundled code is kept in the step cache under
// a hash of everything it is made from, and later loads evaluate it as Spectral's own loader does.
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, resolve } from 'node:path';
import type { ISpectralDiagnostic, Ruleset } from '@stoplight/spectral-core';
import { parse as parseYaml } from 'yaml';
import { textOf } from '../support/artifacts.js';
import { CACHE_DIR, StepCache } from '../support/cache.js';
import { InputReader, type StepInputs } from '../support/inputs.js';
import { TOOLCHAIN } from '../support/toolchain.js';

const require = createRequire(import.meta.url);

/**
 * The ruleset at `path`: evaluated from its cached bundle when the files it is made from are
 * unchanged, else bundled by Rollup (then cached).
 */
export async function loadRuleset(path: string, cacheDir = CACHE_DIR): Promise<Ruleset> {
  const file = resolve(path);
  const reader = new InputReader();
  const key = await reader.key(['spectral-ruleset'], rulesetInputs(file));
  const cache = new StepCache(cacheDir);
  const cached = key === undefined ? undefined : await cache.get('spectral-ruleset', key);
  if (cached?.artifacts[0]) return rulesetFromCode(await textOf(cached.artifacts[0]), file);
  const code = await bundleRuleset(file);
  if (key !== undefined && (await reader.unchangedSince()))
    await cache.put('spectral-ruleset', key, { artifacts: [{ path: 'ruleset.cjs', content: code }] });
  return rulesetFromCode(code, file);
}

/**
 * What the bundled ruleset is made from: the ruleset, each local ruleset it extends (the admin
 * document's extends the contract's) and their house rules, with the toolchain (the rules import
 * tooling/, Rollup and the rulesets come from node_modules).
 */
function rulesetInputs(path: string): StepInputs {
  const files: string[] = [];
  const trees: string[] = [];
  const visit = (file: string) => {
    if (files.includes(file)) return;
    files.push(file);
    const ruleset = readRuleset(file);
    if (typeof ruleset?.functionsDir === 'string') trees.push(resolve(dirname(file), ruleset.functionsDir));
    const extended = Array.isArray(ruleset?.extends) ? ruleset.extends : [ruleset?.extends];
    for (const entry of extended) {
      const name = Array.isArray(entry) ? entry[0] : entry;
      if (typeof name === 'string' && /^\.\.?\//.test(name)) visit(resolve(dirname(file), name));
    }
  };
  visit(path);
  return { ...TOOLCHAIN, files: [...TOOLCHAIN.files, ...files], trees: [...TOOLCHAIN.trees, ...trees] };
}

/** A ruleset file's `extends` and `functionsDir`; undefined when it does not read (bundling it fails, and nothing is cached). */
function readRuleset(file: string): { extends?: unknown; functionsDir?: unknown } | undefined {
  try {
    const value = parseYaml(fs.readFileSync(file, 'utf8')) as unknown;
    return value !== null && typeof value === 'object' ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The code of the ruleset at `path` as Spectral's own loading bundles it (Rollup and its CommonJS
 * plugin), with ours for the house rules. Without the CLI's `builtins` plugin, which hands the
 * ruleset this process's Spectral modules under a random id that the code would then carry: the
 * code requires them by name, and stays valid to cache. The bundler (Rollup among its modules) is
 * loaded only here, when the ruleset has changed; the ruleset it makes of the code is left for the
 * one rulesetFromCode makes, on this thread's Spectral modules.
 */
async function bundleRuleset(path: string): Promise<string> {
  // require(), not import: these CommonJS packages re-export through tslib's __exportStar,
  // which Node's ESM named-export detection cannot see.
  const { fetch } = require('@stoplight/spectral-runtime') as typeof import('@stoplight/spectral-runtime');
  const { bundleAndLoadRuleset } =
    require('@stoplight/spectral-ruleset-bundler/with-loader') as typeof import('@stoplight/spectral-ruleset-bundler/with-loader');
  const { commonjs } =
    require('@stoplight/spectral-ruleset-bundler/plugins/commonjs') as typeof import('@stoplight/spectral-ruleset-bundler/plugins/commonjs');
  let code: string | undefined;
  const capture = {
    name: 'capture-bundled-ruleset',
    generateBundle(_: unknown, output: Record<string, { type: string; code?: string }>) {
      code = Object.values(output).find((o) => o.type === 'chunk')?.code;
    },
  };
  await bundleAndLoadRuleset(path, { fs, fetch }, [commonjs(), typescriptRules(), capture]);
  if (code === undefined) throw new Error(`${path}: Spectral's bundler made no code of the ruleset`);
  return code;
}

/**
 * A bundled ruleset evaluated as the bundler's node loader does (`load()` in
 * @stoplight/spectral-ruleset-bundler/dist/loader/node.js): CommonJS, its Spectral packages those
 * of this thread (spectral-modules.ts), anything else required from the ruleset's folder.
 */
async function rulesetFromCode(code: string, path: string): Promise<Ruleset> {
  const { core, RULESET_REQUIRES } = await import('./spectral-modules.js');
  const req = createRequire(path);
  const module: { exports?: unknown } = {};
  Function('module, require', code)(module, (id: string) =>
    RULESET_REQUIRES.has(id) ? RULESET_REQUIRES.get(id) : req(id),
  );
  if (typeof module.exports !== 'object' || module.exports === null) throw new Error('No valid export found');
  return new core.Ruleset(module.exports as ConstructorParameters<typeof core.Ruleset>[0], {
    severity: 'recommended',
    source: path,
  });
}

/**
 * A Rollup plugin for the house rules, which are TypeScript: an import of `x.js` (relative or absolute, as Spectral writes
 * the `functions:`) that exists
 * only as `./x.ts` (TypeScript's own convention) resolves to the `.ts` file, and esbuild strips
 * its types. Type-only imports vanish, so nothing of openapi-typescript or Spectral is bundled.
 */
function typescriptRules() {
  return {
    name: 'house-rules-typescript',
    resolveId(source: string, importer: string | undefined): string | null {
      if (!source.endsWith('.js')) return null;
      const ts = source.replace(/\.js$/, '.ts');
      const candidate = isAbsolute(ts)
        ? ts
        : importer !== undefined && /^\.\.?\//.test(ts)
          ? resolve(dirname(importer), ts)
          : undefined;
      if (candidate === undefined) return null;
      return fs.existsSync(candidate) && !fs.existsSync(candidate.replace(/\.ts$/, '.js')) ? candidate : null;
    },
    async transform(code: string, id: string): Promise<{ code: string } | null> {
      if (!id.endsWith('.ts')) return null;
      const { transform } = await import('esbuild');
      const out = await transform(code, { loader: 'ts', format: 'esm', target: 'es2022', sourcefile: id });
      return { code: out.code };
    },
  };
}

/** Spectral's findings on `yaml`, the bundle's text, named `source` in them. */
export async function spectralDiagnostics(
  yaml: string,
  ruleset: Ruleset,
  source: string,
): Promise<ISpectralDiagnostic[]> {
  const { core, parsers } = await import('./spectral-modules.js');
  const spectral = new core.Spectral();
  spectral.setRuleset(ruleset);
  // Lint the exact YAML text that `npm run generate` writes, so bundle line numbers match the file.
  return spectral.run(new core.Document(yaml, parsers.Yaml, source));
}
