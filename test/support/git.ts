import { execFileSync } from 'node:child_process';

/** The CI variables that name a pull request's target, emptied: a child process then sees no target. */
export const NO_TARGET: Record<string, string> = { GITHUB_BASE_REF: '', CI_MERGE_REQUEST_TARGET_BRANCH_NAME: '' };

/** `git …` in `cwd` with a fixed author, returning stdout; throws on a non-zero exit. */
export function gitIn(cwd: string): (...args: string[]) => string {
  return (...args) =>
    execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.invalid', ...args], {
      cwd,
      stdio: 'pipe',
      env: { ...process.env, ...NO_TARGET, GIT_CONFIG_NOSYSTEM: '1' },
    }).toString();
}
