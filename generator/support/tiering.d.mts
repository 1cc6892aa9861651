/** The flag that sets TurboFan's bar nine times V8's default on Node.js `major` (default: this process's). */
export function shortRunTiering(major?: number): string;
