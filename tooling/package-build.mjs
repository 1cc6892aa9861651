// What the builds of the packages run by Node share (packages/<name>/build.mjs): their folders, the
// bundles esbuild makes of their sources and what those reach in the repository (for Node, and for a
// browser page), the contract beside them, and the declarations of their public API.
import { copyFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * A package's build begins: its folder (from the build script's `import.meta.url`), its manifest and
 * its `dist/`, emptied.
 */
export function startBuild(buildScriptUrl) {
  const packageDir = dirname(fileURLToPath(buildScriptUrl));
  const dist = join(packageDir, 'dist');
  rmSync(dist, { recursive: true, force: true });
  const manifest = createRequire(buildScriptUrl)('./package.json');
  return { packageDir, root: ROOT, dist, manifest };
}

/** For a CommonJS dependency bundled into an ES module: the `require()` it calls. */
export const REQUIRE_BANNER =
  "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);";

/** What every bundle of a package is: each entry and what it reaches in one ES module, no licence comments, quiet. */
const PACKAGE_BUNDLE = { bundle: true, format: 'esm', legalComments: 'none', logLevel: 'warning' };

/**
 * esbuild for Node: every entry and what it reaches bundled into ES modules for Node 20 and later, but
 * the dependencies and peer dependencies the manifest declares, which npm installs. `options` adds to
 * or overrides these (entries, chunks, banner, plugins).
 */
export function bundleForNode(manifest, options) {
  return build({
    ...PACKAGE_BUNDLE,
    platform: 'node',
    target: 'node20',
    external: [...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {})],
    ...options,
  });
}

/**
 * esbuild for a browser page (the exports map's `browser` condition): every entry and what it
 * reaches bundled into ES modules for browsers of ES2022, but what `options.external` names.
 */
export function bundleForBrowser(options) {
  return build({ ...PACKAGE_BUNDLE, platform: 'browser', target: 'es2022', ...options });
}

/** The contract as the repository bundled it, beside the package's code: a package never bundles at run time. */
export function copyContract(dist) {
  copyFileSync(join(ROOT, 'generated/openapi.json'), join(dist, 'openapi.json'));
}

/**
 * The declarations of a package's public API, its build's last step: each file a consumer imports,
 * `publicFiles` (`.d.ts` names relative to the package's src/), made from its source alone by
 * TypeScript's isolated declarations (`transpileDeclaration`): those sources spell out the types of
 * what they export and import only one another, so no type check of everything they reach is
 * needed (`npm run typecheck` is that check), and the files are what tsc emits for them. Beside
 * them an empty one for the command (a bin has no API). A source that leaves a type to inference
 * stops the build with TypeScript's message at its file and line.
 */
export function emitDeclarations({ packageDir, dist, publicFiles }) {
  const ts = createRequire(import.meta.url)('typescript');
  const compilerOptions = {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
  };
  const problems = [];
  const declarations = publicFiles.map((file) => {
    const source = join(packageDir, 'src', file.replace(/\.d\.ts$/, '.ts'));
    const text = readFileSync(source, 'utf8');
    const emitted = ts.transpileDeclaration(text, { fileName: source, compilerOptions, reportDiagnostics: true });
    for (const d of emitted.diagnostics ?? []) problems.push(declarationProblem(ts, d, relative(ROOT, source)));
    return { file, text: emitted.outputText };
  });
  if (problems.length > 0) {
    console.error(`the declarations of ${relative(ROOT, packageDir)} cannot be made:\n${problems.join('\n')}`);
    process.exit(1);
  }
  for (const { file, text } of declarations) writeFileSync(join(dist, file), text);
  writeFileSync(join(dist, 'cli.d.ts'), 'export {};\n');
}

/** `file:line:col message`, of one of TypeScript's diagnostics. */
function declarationProblem(ts, diagnostic, file) {
  const at =
    diagnostic.file && diagnostic.start !== undefined
      ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start)
      : { line: 0, character: 0 };
  return `${file}:${at.line + 1}:${at.character + 1} ${ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ')}`;
}
