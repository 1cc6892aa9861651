// node redocly-host.mjs <@redocly/cli/lib/index.js> [handler…]: Redocly CLI run command after
// command in one process, so that each command after the first pays neither Node's start nor the
// loading of the CLI. It loads the CLI's modules (those index.js imports, and the chunk of each
// named handler, such as handleBundle), prints `ready` on a line of its own, then reads one line of
// JSON per command from stdin ({ "args": [...], "cwd": "..." }), runs `redocly <args>` in that
// directory exactly as the CLI's own process would, and answers with one line of JSON:
// { "code": <exit code>, "stdout": "...", "stderr": "..." }. The end of stdin ends it.
//
// The CLI is written to run once per process: its entry parses process.argv when evaluated, and a
// command ends by registering `process.exit(code)` for when the event loop empties. Here the entry
// is evaluated anew for each command (a URL of its own; the chunks it imports stay loaded), what
// the command writes is collected, and its end is taken where its process would have exited: a call
// of process.exit, the exit it registers, or an event loop with nothing left but stdin.
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';

const [index, ...handlers] = process.argv.slice(2);
const url = pathToFileURL(index);
const write = { stdout: process.stdout.write.bind(process.stdout), stderr: process.stderr.write.bind(process.stderr) };

const realExit = process.exit.bind(process);
/** The command running: what it wrote so far. */
let current;
let runs = 0;
let closed = false;

/** The command ended with `code`: its answer goes out, and stdin is read again. */
function finish(code) {
  if (!current) return;
  const { stdout, stderr } = current;
  current = undefined;
  write.stdout(`${JSON.stringify({ code: typeof code === 'number' ? code : 1, stdout, stderr })}\n`);
  if (closed) realExit(0);
  process.stdin.ref();
}

// Before anything of the CLI loads: the modules keep references to process.exit and the streams.
process.exit = (code) => {
  if (current) finish(code ?? process.exitCode ?? 0);
  else realExit(code);
};
const once = process.once.bind(process);
process.once = (event, listener) => {
  if (event === 'beforeExit' && current) {
    setImmediate(listener); // the command's own end: it calls process.exit(code)
    return process;
  }
  return once(event, listener);
};
process.on('beforeExit', () => finish(process.exitCode ?? 0));
const collect = (stream) => (chunk, encoding, callback) => {
  if (current) current[stream] += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
  const done = typeof encoding === 'function' ? encoding : callback;
  if (typeof done === 'function') queueMicrotask(done);
  return true;
};
process.stdout.write = collect('stdout');
process.stderr.write = collect('stderr');
const failed = (err) => {
  if (!current) return;
  current.stderr += `${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`;
  finish(1);
};
process.on('uncaughtException', failed);
process.on('unhandledRejection', failed);

// the static imports of the entry, at the top of the file, and the chunks of the named handlers
const code = readFileSync(index, 'utf8');
for (const m of code.slice(0, 8000).matchAll(/(?:from|import)\s*"(\.\/chunks\/[^"]+)"/g))
  await import(new URL(m[1], url).href);
for (const handler of handlers) {
  const chunk = new RegExp(`${handler}:\\w+\\}=await import\\("(\\./chunks/[^"]+)"\\)`).exec(code);
  if (chunk) await import(new URL(chunk[1], url).href);
}
write.stdout('ready\n');

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  if (current || line.trim() === '') return;
  const { args, cwd } = JSON.parse(line);
  current = { stdout: '', stderr: '' };
  process.exitCode = undefined;
  // While the command runs, stdin alone does not keep the process up: an empty event loop is its end.
  process.stdin.unref();
  try {
    process.chdir(cwd);
    process.argv = [process.argv[0], index, ...args];
    import(`${url.href}?run=${++runs}`).catch(failed);
  } catch (err) {
    failed(err);
  }
});
lines.on('close', () => {
  closed = true;
  if (!current) realExit(0);
});
