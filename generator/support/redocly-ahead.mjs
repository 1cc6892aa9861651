// node redocly-ahead.mjs <@redocly/cli/lib/index.js> <handler>: Redocly CLI with its modules loaded
// ahead (those index.js imports, and the chunk of the command's handler, such as handleBundle),
// then, once `ready` is printed, run with the arguments and working directory of the one line of
// JSON read from stdin ({ "args": [...], "cwd": "..." }), exactly as `redocly <args>` would run.
// The chunks are found by their names in the CLI's files; if that layout changes, less is loaded
// ahead and the CLI still runs.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const [index, handler] = process.argv.slice(2);
const url = pathToFileURL(index);
const code = readFileSync(index, 'utf8');
// the static imports, at the top of the file
for (const m of code.slice(0, 8000).matchAll(/(?:from|import)\s*"(\.\/chunks\/[^"]+)"/g))
  await import(new URL(m[1], url).href);
const chunk = new RegExp(`${handler}:\\w+\\}=await import\\("(\\./chunks/[^"]+)"\\)`).exec(code);
if (chunk) await import(new URL(chunk[1], url).href);
process.stdout.write('ready\n');

let line = '';
process.stdin.setEncoding('utf8');
for await (const data of process.stdin) line += data;
const { args, cwd } = JSON.parse(line);
process.chdir(cwd);
process.argv = [process.argv[0], index, ...args];
await import(url.href);
