import { spawn } from 'node:child_process';

export interface ProcessResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs a Node.js script in a child process with this Node (no npx, no shell) and collects its
 * output. Colours are off so that output can be parsed.
 */
export function runNode(
  script: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<ProcessResult> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [script, ...args], {
      cwd: options.cwd ?? process.cwd(),
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', fail);
    child.on('close', (code) => done({ code: code ?? 1, stdout, stderr }));
  });
}
