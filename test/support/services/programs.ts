// Global setup of the projects that start the sandbox or the mock as processes: their programs
// compiled once (tooling/compile.mjs), before any worker starts, so that the processes the tests
// start (and the workers they are started from, which inherit the environment) find them ready
// instead of each compiling them at once.
import { compiled } from '../../../tooling/compile.mjs';
import { once } from './shared.js';

export default async function setup(): Promise<void> {
  await once('programs', async () => {
    await Promise.all([compiled('sandbox'), compiled('mock')]);
  });
}
