/** The programs tooling/compile.mjs compiles. */
export type Program = 'generator' | 'sandbox' | 'mock';
/** The folder of `program` compiled from the code as it is now, compiled first if need be. */
export function compiled(program: Program): Promise<string>;
/** Runs `program`'s entry point `entry` (default `main`) in this process. */
export function run(program: Program, entry?: string): Promise<void>;
