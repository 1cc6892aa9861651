// npm run generate: generator/cli.ts compiled to plain JavaScript (tooling/compile.mjs says why and
// how), run by Node alone, with V8's tiering for a short run (support/tiering.mjs) set before any of
// it loads. V8's flags are the process's: lint's worker threads run under it too.
import { setFlagsFromString } from 'node:v8';
import { run } from '../tooling/compile.mjs';
import { shortRunTiering } from './support/tiering.mjs';

setFlagsFromString(shortRunTiering());
await run('generator', 'cli');
