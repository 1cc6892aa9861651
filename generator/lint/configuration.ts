import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { SPECTRAL_RULESET } from '../support/paths.js';

export interface LintConfiguration {
  /** The Redocly config, the lint-ignore file beside it (Redocly reads it from there), the Spectral ruleset. */
  files: string[];
  /** The ruleset's `functionsDir`: the house rules. */
  functionsDir?: string;
}

/**
 * The files that decide what lint reports besides the contract and the tools: watch mode re-lints
 * when one of them changes, and they are part of the lint step's cache key.
 */
export function lintConfiguration(redoclyConfig: string): LintConfiguration {
  const files = [redoclyConfig, join(dirname(redoclyConfig), '.redocly.lint-ignore.yaml'), SPECTRAL_RULESET];
  try {
    const functionsDir = (parseYaml(readFileSync(SPECTRAL_RULESET, 'utf8')) as { functionsDir?: unknown } | null)
      ?.functionsDir;
    return typeof functionsDir === 'string'
      ? { files, functionsDir: resolve(dirname(SPECTRAL_RULESET), functionsDir) }
      : { files };
  } catch {
    return { files }; // a broken ruleset is lint's to report (its file is among these)
  }
}
