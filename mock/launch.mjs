// npm run mock: scripts/mock.ts compiled to plain JavaScript (tooling/compile.mjs says why and how),
// run by Node alone.
import { run } from '../tooling/compile.mjs';

await run('mock');
