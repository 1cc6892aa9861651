/** The flag that sets TurboFan's bar nine times V8's default on Node.js `major` (default: this process's). */
export function shortRunTiering(major?: number): string;
/** Sets it in this process, for the code it loads from now on. */
export function useShortRunTiering(): void;
/** The module that sets it in a Node.js process started with `--import` it. */
export const SHORT_RUN_IMPORT: string;
