// The repository's programs compiled to plain JavaScript, once per version of their code: what
// `npm run generate` (generator/launch.mjs), `npm run sandbox` (sandbox/launch.mjs) and `npm run
// mock` (mock/launch.mjs) run, and what lint's worker thread loads. tsx compiles every TypeScript
// file on each start and routes every module, the packages' included, through its loader thread:
// that start-up was most of a run with nothing to do, and much of a sandbox's start, and a worker
// thread cannot use it.
//
// A program is esbuild's bundle of its entry points with what they import, the packages included
// but for the few that cannot be (UNBUNDLED), split where the code imports lazily, in
// node_modules/.cache/payment-compiled/<program>/<key>/: resolving and reading the packages' many
// small files weighed on every start (docs/benchmarks.md). The key is a hash of everything that
// decides that code: the repository's TypeScript folders (this file included), tsconfig.json, the
// lockfiles (the packages' and esbuild's versions) and the Node.js version. Each module keeps
// naming its own source file (sourceLocations), so paths found from it (the repository's root, the
// bundle, a package's own files) are what they are under tsx.
import { createHash, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, utimes } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
/** The compiled programs' folder (PAYMENT_COMPILED_CACHE: another, for a test that needs a cold one). */
const COMPILED = process.env.PAYMENT_COMPILED_CACHE ?? join(REPO_ROOT, 'node_modules', '.cache', 'payment-compiled');
/** Compiled versions kept per program: the current one and one to go back to (a switched branch)... */
const KEEP = 2;
/** ...and any used within the hour (another checkout sharing node_modules, a process still running). */
const IN_USE_MS = 60 * 60 * 1000;
/** The folders whose TypeScript a program may import; a change in any of them compiles anew. */
const SOURCES = ['generator', 'tooling', 'sandbox', 'src', 'mock', 'scripts', 'generated'];

/** The programs: each entry point compiles to <name>.mjs in the program's folder. */
const PROGRAMS = {
  generator: {
    cli: join(REPO_ROOT, 'generator', 'cli.ts'),
    'lint-worker': join(REPO_ROOT, 'generator', 'lint', 'lint-worker.ts'),
  },
  sandbox: { main: join(REPO_ROOT, 'sandbox', 'main.ts') },
  mock: { main: join(REPO_ROOT, 'scripts', 'mock.ts') },
};

/** Where a launcher leaves the compiled folder for the processes and threads it starts. */
const envOf = (program) => `PAYMENT_COMPILED_${program.toUpperCase()}`;

/** Compilations under way in this module instance, by program: concurrent callers share one. */
const compiling = new Map();

/** The folder of `program` compiled from the code as it is now, compiled first if need be. */
export function compiled(program) {
  let folder = compiling.get(program);
  if (!folder) {
    folder = compiledNow(program);
    compiling.set(program, folder);
    folder.catch(() => compiling.delete(program));
  }
  return folder;
}

async function compiledNow(program) {
  const entryPoints = PROGRAMS[program];
  if (!entryPoints) throw new Error(`tooling/compile.mjs: no program ${program}`);
  const env = envOf(program);
  if (process.env[env]) return process.env[env];
  const dir = join(COMPILED, program, await sourceKey());
  const first = `${Object.keys(entryPoints)[0]}.mjs`;
  if (existsSync(join(dir, first))) {
    const now = new Date();
    await utimes(dir, now, now).catch(() => undefined); // in use: kept by the next prune
  } else await compile(dir, entryPoints);
  process.env[env] = dir;
  return dir;
}

/** Runs `program`'s entry point `entry` in this process: a launcher's whole work. */
export async function run(program, entry = 'main') {
  const dir = await compiled(program);
  process.setSourceMapsEnabled(true); // a bug's stack names the TypeScript file and line
  await import(pathToFileURL(join(dir, `${entry}.mjs`)).href);
}

async function sourceKey() {
  // The checkout's own path too: a compiled program names its source files by their URLs, so the same
  // code in another worktree (sharing node_modules) compiles a program of its own.
  const hash = createHash('sha256').update(`node ${process.version}\n${REPO_ROOT}\n`);
  const trees = await Promise.all(
    SOURCES.map((dir) => readdir(join(REPO_ROOT, dir), { recursive: true, withFileTypes: true }).catch(() => [])),
  );
  const files = [
    ...trees.flat().flatMap((e) => (e.isFile() && /\.m?[jt]s$/.test(e.name) ? [join(e.parentPath, e.name)] : [])),
    ...['tsconfig.json', 'package-lock.json', join('node_modules', '.package-lock.json')].map((f) =>
      join(REPO_ROOT, f),
    ),
  ].sort();
  const contents = await Promise.all(files.map((f) => readFile(f).catch(() => Buffer.from('missing'))));
  files.forEach((f, i) => hash.update(`${relative(REPO_ROOT, f)}\n`).update(contents[i]));
  return hash.digest('hex').slice(0, 32);
}

/**
 * Gives each module the location of its own source file, not of the chunk it is bundled into:
 * `import.meta.url` becomes that file's URL and, in a CommonJS module, `__filename` and `__dirname`
 * its path and folder (esbuild wraps such a module in a function, so they stay its own). Paths
 * found from them (the repository's root, the bundle, a package's own files) are what they are
 * when the module is loaded from its file.
 */
const sourceLocations = {
  name: 'source-locations',
  setup(build) {
    build.onLoad({ filter: /\.[cm]?[jt]s$/ }, async ({ path }) => {
      const text = (await readFile(path, 'utf8')).replaceAll(
        'import.meta.url',
        JSON.stringify(pathToFileURL(path).href),
      );
      // on the first line, so that the source map's lines stay the file's
      const locations = `var __filename = ${JSON.stringify(path)}, __dirname = ${JSON.stringify(dirname(path))};`;
      return { contents: isCommonJs(path, text) ? locations + text : text, loader: path.endsWith('.ts') ? 'ts' : 'js' };
    });
  },
};

/**
 * Packages left out of the bundle: native addons (better-sqlite3, pg's optional pg-native), esbuild
 * (it runs a binary of its platform package) and TypeScript (one large file already, which the
 * generator requires by name).
 */
const UNBUNDLED = ['better-sqlite3', 'pg-native', 'esbuild', 'typescript', 'fsevents'];

/** Whether esbuild takes `path` for a CommonJS module: a .cjs file, or a .js one without import or export statements. */
function isCommonJs(path, text) {
  if (path.endsWith('.cjs')) return true;
  if (!path.endsWith('.js')) return false;
  return !/^\s*(?:import\s*[\w{*'"]|export\s)/m.test(text);
}

async function compile(dir, entryPoints) {
  const { build } = await import('esbuild');
  const programDir = join(dir, '..');
  await mkdir(programDir, { recursive: true });
  // Unique per compilation: the threads of one process share its pid, and so may other runs.
  const tmp = `${dir}.${process.pid}.${randomUUID()}.tmp`;
  await build({
    entryPoints,
    outdir: tmp,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: `node${process.versions.node.split('.')[0]}`,
    // Only what cannot be bundled stays in node_modules: native addons and packages that find
    // binaries or files of their own at run time.
    external: UNBUNDLED,
    // jsonc-parser's main file is a UMD build whose require()s of its own files esbuild cannot
    // follow; its ES module build is the same code.
    alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
    // The require() of a bundled CommonJS module (Node's built-in modules, mostly).
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module'; var require = __createRequire(import.meta.filename);",
    },
    outExtension: { '.js': '.mjs' },
    sourcemap: true,
    // the packages' sources stay in node_modules: a stack names them by path
    sourcesContent: false,
    logLevel: 'error',
    plugins: [sourceLocations],
  });
  try {
    await rename(tmp, dir);
  } catch {
    await rm(tmp, { recursive: true, force: true }); // compiled by another run meanwhile
  }
  await prune(programDir);
}

/** Beyond the newest versions, those unused for the hour; and the temp folders of compilations that died. */
async function prune(programDir) {
  const entries = await Promise.all(
    (await readdir(programDir)).map(async (name) => ({ name, at: (await stat(join(programDir, name))).mtimeMs })),
  );
  const old = (e) => Date.now() - e.at > IN_USE_MS;
  const versions = entries.filter((e) => !e.name.endsWith('.tmp')).sort((a, b) => b.at - a.at);
  const removed = [...versions.slice(KEEP).filter(old), ...entries.filter((e) => e.name.endsWith('.tmp') && old(e))];
  for (const { name } of removed) await rm(join(programDir, name), { recursive: true, force: true });
}
