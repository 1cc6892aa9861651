import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

/** The repository root (this file lives in <root>/generator/support/). */
export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

export const DEFAULT_ROOT = join(REPO_ROOT, 'openapi', 'openapi.yaml');
export const DEFAULT_OUT = join(REPO_ROOT, 'generated');
export const REDOCLY_CONFIG = join(REPO_ROOT, 'redocly.yaml');
export const SPECTRAL_RULESET = join(REPO_ROOT, '.spectral.yaml');
