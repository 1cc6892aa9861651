// Where a Node process gets the sandbox secret (app/secrets.ts derives every key from it): the
// environment, or a key file that every process of a team shares, made on first use.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** The environment variable that gives the secret itself (every process of a team the same). */
export const SECRET_ENV = 'SANDBOX_SECRET';
/** The environment variable that names the key file (default `.sandbox/secret.key`). */
export const SECRET_FILE_ENV = 'SANDBOX_SECRET_FILE';
export const DEFAULT_SECRET_FILE = join('.sandbox', 'secret.key');
/** A secret given as text must carry at least this many characters (a random one: 32 bytes in base64url). */
export const MIN_SECRET_LENGTH = 32;

export interface SecretSource {
  /** The secret itself (SANDBOX_SECRET). */
  secret?: string | undefined;
  /** A key file (--secret-file or SANDBOX_SECRET_FILE); created with a random secret when missing. */
  file?: string | undefined;
}

/**
 * The secret a process runs with: the one given, else the key file's (created 0600 with 32 random
 * bytes on first use, from the CSPRNG even under --seed). Throws naming the variable or the file
 * when it is unusable.
 */
export function loadSecret(source: SecretSource): { secret: string; from: string } {
  if (source.secret !== undefined) {
    if (source.secret.trim().length < MIN_SECRET_LENGTH)
      throw new Error(`${SECRET_ENV} must be at least ${MIN_SECRET_LENGTH} characters (a random value)`);
    return { secret: source.secret.trim(), from: SECRET_ENV };
  }
  const file = source.file ?? DEFAULT_SECRET_FILE;
  if (!existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true });
    const tmp = join(dirname(file), `.${basename(file)}.${process.pid}.tmp`);
    writeFileSync(tmp, `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600 });
    renameSync(tmp, file);
  }
  let text: string;
  try {
    text = readFileSync(file, 'utf8').trim();
    chmodSync(file, 0o600);
  } catch (err) {
    throw new Error(`cannot read the sandbox secret file ${file}: ${(err as Error).message}`);
  }
  if (text.length < MIN_SECRET_LENGTH)
    throw new Error(`the sandbox secret file ${file} must hold at least ${MIN_SECRET_LENGTH} characters`);
  return { secret: text, from: file };
}
