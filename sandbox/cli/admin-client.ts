// The admin API's client for the CLI: openapi-fetch typed by the admin document's generated types
// (generated/admin/types.ts). Every failure becomes a CliError with one line that says what to do.
import createClient from 'openapi-fetch';
import type { paths } from '../../generated/admin/types.js';
import { type DataFileSource, dataFileFindings } from './data-findings.js';

/** A failure the CLI reports in one line, exiting 1. */
export class CliError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CliError';
  }
}

export type AdminClient = ReturnType<typeof createAdminClient>;

export function createAdminClient(url: string, adminKey: string) {
  return createClient<paths>({ baseUrl: url.replace(/\/+$/, ''), headers: { authorization: `Bearer ${adminKey}` } });
}

interface Problem {
  status?: number;
  title?: string;
  detail?: string;
  errors?: Record<string, string[]>;
}

/** One line for a network error: the sandbox is not there. */
export function unreachable(url: string, err: unknown): CliError {
  const e = err as Error & { cause?: { code?: string; message?: string } };
  const why = e.cause?.code ?? e.cause?.message ?? e.message;
  return new CliError(`cannot reach the sandbox at ${url} (${why}): start it with \`npm run sandbox\`, or pass --url`);
}

/**
 * The data of an admin call, or a CliError: unreachable, a refused admin key (401), or the
 * problem's title, detail and fields; the faults of the data file `dataFile` (a call that sent one)
 * one per line, at their line in the file.
 */
export async function admin<T>(
  url: string,
  call: Promise<{ data?: T; error?: unknown; response: Response }>,
  dataFile?: DataFileSource,
): Promise<T> {
  let result: Awaited<typeof call>;
  try {
    result = await call;
  } catch (err) {
    throw unreachable(url, err);
  }
  if (result.data !== undefined && result.response.ok) return result.data;
  const status = result.response.status;
  if (status === 401)
    throw new CliError(
      `the sandbox at ${url} refused the admin key (401): pass --admin-key or SANDBOX_ADMIN_KEY (\`npm run sandbox\` prints it and writes it to .sandbox/cli.json)`,
    );
  const problem = (result.error ?? {}) as Problem;
  const summary = `${status} ${problem.title ?? result.response.statusText}${problem.detail ? ` ${problem.detail}` : ''}`;
  const findings = dataFileFindings(problem.errors, dataFile);
  if (findings) throw new CliError([summary, ...findings].join('\n  '));
  const fields = problem.errors
    ? ` (${Object.entries(problem.errors)
        .map(([field, messages]) => `${field}: ${messages.join('; ')}`)
        .join(', ')})`
    : '';
  throw new CliError(`${summary}${fields}`);
}
