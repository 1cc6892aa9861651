import { join } from 'node:path';
import { REPO_ROOT } from '../../tooling/repository.js';

export { REPO_ROOT };

export const DEFAULT_ROOT = join(REPO_ROOT, 'openapi', 'openapi.yaml');
export const DEFAULT_OUT = join(REPO_ROOT, 'generated');
export const REDOCLY_CONFIG = join(REPO_ROOT, 'redocly.yaml');
export const SPECTRAL_RULESET = join(REPO_ROOT, '.spectral.yaml');
/** The guides of the docs site. */
export const GUIDES_DIR = join(REPO_ROOT, 'docs', 'guides');
/** The sandbox's admin API document. */
export const ADMIN_ROOT = join(REPO_ROOT, 'sandbox', 'admin', 'openapi.yaml');
/** The Arazzo workflows and the hosted page's test description they use. */
export const ARAZZO_DIR = join(REPO_ROOT, 'arazzo');
