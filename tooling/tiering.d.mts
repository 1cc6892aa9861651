/** The flag that sets TurboFan's bar nine times V8's default on Node.js `major` (default: this process's). */
export function shortRunTiering(major?: number): string;
/** Sets it in this process, for the code it runs from now on. */
export function useShortRunTiering(): void;
