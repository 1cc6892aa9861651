// Spectral's packages where lint's worker thread runs them (spectral.ts imports this module when it
// first needs them): in the compiled generator (tooling/compile.mjs) they are then bundled into a
// chunk that only the worker loads, rather than read and resolved file by file from node_modules
// by every run. Default imports: these are CommonJS packages, whose `module.exports` is an ES
// module's default export in Node.js and in esbuild's bundles alike.
import core from '@stoplight/spectral-core';
import formats from '@stoplight/spectral-formats';
import functions from '@stoplight/spectral-functions';
import parsers from '@stoplight/spectral-parsers';
import rulesets from '@stoplight/spectral-rulesets';

export { core, parsers };

/** The packages a bundled ruleset's code requires by name, served as these very modules (as Spectral's CLI does). */
export const RULESET_REQUIRES: ReadonlyMap<string, unknown> = new Map<string, unknown>([
  ['@stoplight/spectral-core', core],
  ['@stoplight/spectral-formats', formats],
  ['@stoplight/spectral-functions', functions],
  ['@stoplight/spectral-rulesets', rulesets],
]);
