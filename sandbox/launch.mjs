// npm run sandbox: sandbox/main.ts compiled to plain JavaScript (tooling/compile.mjs says why and
// how), run by Node alone with the script's Node options.
import { run } from '../tooling/compile.mjs';

await run('sandbox');
