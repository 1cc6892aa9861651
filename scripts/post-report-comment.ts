// npm run report:comment -- --body report.md [--pr <number>] [--marker <html comment>] [--author <login>]
//                           [--api-url <url>] [--summary-only]
//
// Posts `npm run report`'s Markdown as the pull request's one report comment (generator/code-host/comment.ts):
// creates it on the first run, updates the same comment on every later one. Reads GITHUB_TOKEN,
// GITHUB_REPOSITORY, GITHUB_API_URL and the pull request from the event payload (GITHUB_EVENT_PATH)
// unless --pr names it. With GITHUB_STEP_SUMMARY set the report also goes to the job summary; a
// pull request from a fork or a run Dependabot started (both get a read-only token) or --summary-only
// gets the summary alone.
// Exit codes: 0 posted or summarized; 1 GitHub refused (401, 403, 404…) or the context is missing;
// 2 usage.
import { appendFile, readFile } from 'node:fs/promises';
import {
  DEFAULT_AUTHOR,
  parsePullNumber,
  pullRequestOf,
  REPORT_MARKER,
  upsertReportComment,
} from '../generator/code-host/comment.js';
import { CodeHostError, contextFromEnv, eventPayload, octokitFor } from '../generator/code-host/github.js';
import { commandOptions } from '../generator/support/command-line.js';

const USAGE = `usage: tsx scripts/post-report-comment.ts --body report.md [--pr <number>] [--marker '${REPORT_MARKER}']
                                         [--author ${DEFAULT_AUTHOR}] [--api-url <url>] [--summary-only]`;

const values = commandOptions(
  {
    options: {
      body: { type: 'string' },
      pr: { type: 'string' },
      marker: { type: 'string' },
      author: { type: 'string' },
      'api-url': { type: 'string' },
      'summary-only': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  },
  USAGE,
);

if (!values.body) {
  console.error(`--body <file> is required\n\n${USAGE}`);
  process.exit(2);
}
if (values.marker !== undefined && !/^<!--[\s\S]*\S[\s\S]*-->$/.test(values.marker)) {
  console.error(`--marker must be an HTML comment such as '${REPORT_MARKER}'\n\n${USAGE}`);
  process.exit(2);
}

async function main(bodyFile: string): Promise<string> {
  let body: string;
  try {
    body = await readFile(bodyFile, 'utf8');
  } catch (err) {
    throw new CodeHostError(`cannot read the report ${bodyFile}: ${(err as Error).message} (did npm run report fail?)`);
  }
  const summary = process.env.GITHUB_STEP_SUMMARY;
  if (summary) await appendFile(summary, `${body.trimEnd()}\n`);

  const event = pullRequestOf(await eventPayload());
  // GitHub gives the runs of a fork's pull request, and those Dependabot starts, a read-only token.
  const readOnly = event?.fromFork
    ? 'a pull request from a fork gets a read-only token'
    : process.env.GITHUB_ACTOR === 'dependabot[bot]'
      ? "Dependabot's runs get a read-only token"
      : undefined;
  if (values['summary-only'] || readOnly) {
    const why = values['summary-only'] ? '--summary-only' : readOnly;
    return `not posted (${why}): ${summary ? 'the report is in the job summary' : 'GITHUB_STEP_SUMMARY is not set'}`;
  }
  const pullNumber = values.pr !== undefined ? parsePullNumber(values.pr) : event?.number;
  if (pullNumber === undefined)
    throw new CodeHostError('no pull request: give --pr <number>, or run on a pull_request event (GITHUB_EVENT_PATH)');
  const context = contextFromEnv(process.env, values['api-url']);
  const result = await upsertReportComment(octokitFor(context), context, {
    pullNumber,
    body,
    // An empty --marker or --author is none: the defaults apply.
    marker: values.marker || undefined,
    author: values.author || undefined,
    truncationNote: 'the whole report is in the job summary of the workflow run',
  });
  return `${result.action} the report comment ${result.id} on pull request #${pullNumber}${result.url ? `: ${result.url}` : ''}`;
}

try {
  console.log(await main(values.body));
} catch (err) {
  if (!(err instanceof CodeHostError)) throw err;
  console.error(`report comment: ${err.message}`);
  process.exitCode = 1;
}
