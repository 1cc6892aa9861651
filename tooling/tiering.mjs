// V8's tiering for short runs on two cores. TurboFan compiles a function on threads of its own once
// it has run a while, and most of what a short run heats up then runs too briefly to repay the
// compile, which competes with the run's own threads for the cores (docs/benchmarks.md has what
// each choice below buys):
// - a process of a second or two that mostly loads code (a Redocly run, a tsc compile, a command of
//   scripts/) runs without TurboFan (SHORT_RUN_NODE_FLAGS);
// - `npm run generate`, a few seconds that also compute (Spectral, the examples, the types), keeps
//   it for what runs longest: nine times V8's bar (useShortRunTiering). V8 counts the bar in
//   bytecode run up to Node.js 20 and in calls from Node.js 22.
import { setFlagsFromString } from 'node:v8';

/** Node's flags for a process of a second or two, most of it loading code. */
export const SHORT_RUN_NODE_FLAGS = Object.freeze(['--no-opt']);

/** The flag that sets TurboFan's bar nine times V8's default on Node.js `major`. */
export function shortRunTiering(major = Number(process.versions.node.split('.')[0])) {
  return major <= 20 ? '--interrupt-budget=608256' : '--invocation-count-for-turbofan=27000';
}

/**
 * Sets it in this process, for the code it runs from now on (V8's flags are the process's: its
 * worker threads too). V8 ignores a flag it does not know when it is set this way:
 * test/tooling/tiering.test.ts holds each supported line to its flag.
 */
export function useShortRunTiering() {
  setFlagsFromString(shortRunTiering());
}
