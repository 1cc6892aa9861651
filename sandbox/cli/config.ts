// .sandbox/cli.json: where the running sandbox is and its admin key, written by `npm run sandbox` at
// start so that the CLI's subcommands need no flags (as the stripe CLI keeps its key in a config
// file). It holds credentials: written atomically, readable by its owner only (0600).
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

export const CLI_CONFIG_PATH = join('.sandbox', 'cli.json');
export const DEFAULT_URL = 'http://127.0.0.1:4020';

/**
 * Where the file is: `--cli-config <path|none>`, else SANDBOX_CLI_CONFIG, else .sandbox/cli.json;
 * undefined for `none` (nothing written or read: tests and scripts keep the developer's file intact).
 */
export function cliConfigPath(option: string | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const value = option ?? env.SANDBOX_CLI_CONFIG ?? CLI_CONFIG_PATH;
  return value === 'none' ? undefined : value;
}

export interface CliConfig {
  /** `http://127.0.0.1:4020` */
  url: string;
  adminKey: string;
  /**
   * The merchants that process registered with their API keys (the database keeps only their
   * SHA-256, so the admin API cannot give them): the keys `trigger` calls the merchant API with.
   */
  merchants?: Array<{ merchantId: string; apiKey: string; webhookSecret?: string | string[] }>;
}

/** Writes the file atomically (a temp file beside it, then rename) with mode 0600. */
export function writeCliConfig(config: CliConfig, path = CLI_CONFIG_PATH): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    writeFileSync(tmp, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

/** The file's contents, or undefined when there is none (or it is not a CLI config). */
export function readCliConfig(path = CLI_CONFIG_PATH): CliConfig | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
  const c = parsed as Partial<CliConfig> | null;
  return c && typeof c.url === 'string' && typeof c.adminKey === 'string' ? (c as CliConfig) : undefined;
}

/** Removes the file when it still describes the sandbox at `url` (another may have started since). */
export function removeCliConfig(url: string, path = CLI_CONFIG_PATH): void {
  if (readCliConfig(path)?.url === url) rmSync(path, { force: true });
}
