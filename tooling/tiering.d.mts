/** Node's flags for a process of a second or two, most of it loading code. */
export const SHORT_RUN_NODE_FLAGS: readonly string[];
/** The flag that sets TurboFan's bar nine times V8's default on Node.js `major` (default: this process's). */
export function shortRunTiering(major?: number): string;
/** Sets it in this process, for the code it runs from now on. */
export function useShortRunTiering(): void;
