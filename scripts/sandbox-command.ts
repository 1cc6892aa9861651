// How `npm run sandbox` starts Node (package.json's script), for everything else that starts the
// sandbox as a process (the benchmark, the tests): they run it with the same heap settings users get.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../generator/paths.js';

export const SANDBOX_ENTRY = join(REPO_ROOT, 'sandbox', 'main.ts');

/** The Node options of `npm run sandbox` ("exec node <options> sandbox/main.ts"), `--import tsx` included. */
export function sandboxNodeOptions(): string[] {
  const script = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.sandbox ?? '';
  const match = /^exec node (.*)\bsandbox\/main\.ts$/.exec(script.trim());
  if (!match) throw new Error(`package.json: the sandbox script is not "exec node <options> sandbox/main.ts": ${script}`);
  return match[1]!.split(/\s+/).filter(Boolean);
}
