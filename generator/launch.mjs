// npm run generate: generator/cli.ts compiled to plain JavaScript (compile.mjs says why and how),
// run by Node alone.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { compiledGenerator } from './compile.mjs';

const dir = await compiledGenerator();
process.setSourceMapsEnabled(true); // a bug's stack names the TypeScript file and line
await import(pathToFileURL(join(dir, 'cli.mjs')).href);
