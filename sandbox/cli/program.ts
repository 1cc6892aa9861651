// How the user started this command, for its help and hints: `npm run sandbox --` in the repository,
// `payment-sandbox` from the package (its entry sets SANDBOX_PROGRAM), so every text names what works.
export const PROGRAM = process.env.SANDBOX_PROGRAM ?? 'npm run sandbox --';
/** The command that serves (`npm run sandbox` / `payment-sandbox`). */
export const SERVE_COMMAND = PROGRAM.replace(/ --$/, '');
