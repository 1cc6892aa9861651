// npm run generate: generator/cli.ts compiled to plain JavaScript (tooling/compile.mjs says why and
// how), run by Node alone, with V8's tiering for a short run (tooling/tiering.mjs) set before any of
// it loads.
import { run } from '../tooling/compile.mjs';
import { useShortRunTiering } from '../tooling/tiering.mjs';

useShortRunTiering();
await run('generator', 'cli');
