/** The folder of the compiled generator (cli.mjs, lint-worker.mjs) for the code as it is now, compiled first if need be. */
export function compiledGenerator(): Promise<string>;
