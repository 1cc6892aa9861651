import { fileURLToPath } from 'node:url';

/** The repository root (this file lives in <root>/tooling/). */
export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
