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
/** The admin document's Spectral ruleset: the contract's, extended. */
export const ADMIN_SPECTRAL_RULESET = join(REPO_ROOT, 'sandbox', 'admin', '.spectral.yaml');
/** Redoc options of the admin document's page: the contract's, with the admin document as the download. */
export const ADMIN_DOCS_CONFIG = join(REPO_ROOT, 'sandbox', 'admin', 'docs.redocly.yaml');
/** The Arazzo workflows and the hosted page's test description they use. */
export const ARAZZO_DIR = join(REPO_ROOT, 'arazzo');
/** The docs console's vendored Scalar bundle, its release record and its licence. */
export const SCALAR_VENDOR_DIR = join(REPO_ROOT, 'vendor', 'scalar');
