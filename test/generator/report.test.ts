// The pull-request report (generator/review/report.ts, generator/review/changelog.ts, `npm run report`): the
// changelog on edited copies of the bundled contract (pure); the Markdown on fixtures; breaking
// changes, their source locations and the exit code on an edited copy of openapi/ (redocly diff);
// one end-to-end run of the script on a temporary git repository, drift included.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LintResult } from '../../generator/lint/lint.js';
import { BaseError, loadBase } from '../../generator/review/base.js';
import type { BreakingResult } from '../../generator/review/breaking.js';
import { changelog } from '../../generator/review/changelog.js';
import { countProvenance } from '../../generator/review/provenance.js';
import {
  collectReport,
  compareTrees,
  type ReportData,
  renderReport,
  reportExitCode,
} from '../../generator/review/report.js';
import { DEFAULT_OUT, REPO_ROOT } from '../../generator/support/paths.js';
import type { JsonObject } from '../../tooling/openapi/walker.js';
import { NO_TARGET } from '../support/git.js';
import { loadBundle } from '../support/openapi.js';
import { runScript } from '../support/scripts.js';

const doc = loadBundle() as unknown as JsonObject;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'report-test-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

const schemas = (d: JsonObject) => (d.components as JsonObject).schemas as JsonObject;
const at = (d: JsonObject, ...keys: string[]) =>
  keys.reduce((n, k) => (n as JsonObject)[k], d as unknown) as JsonObject;

/** The changelog from the contract to an edited copy, as "subject: text" lines. */
function changes(edit: (d: JsonObject) => void): string[] {
  const head = structuredClone(doc);
  edit(head);
  return changelog(doc, head).entries.map((e) => `${e.subject}: ${e.text}`);
}

describe('changelog', () => {
  it('is empty for the unchanged contract', () => {
    expect(changes(() => undefined)).toEqual([]);
  });

  it('lists an operation added and one removed, with their endpoints', () => {
    const head = structuredClone(doc);
    (head.paths as JsonObject)['/payments/{id}/notes'] = {
      get: { operationId: 'listPaymentNotes', responses: { '200': { description: 'The notes.' } } },
    };
    delete at(head, 'paths', '/payments/{id}/captures').post;
    const log = changelog(doc, head);
    expect(log.entries.map((e) => `${e.subject}: ${e.text}`)).toEqual([
      'listPaymentNotes: operation added',
      'capturePayment: operation removed',
    ]);
    expect(log.operations).toMatchObject({
      listPaymentNotes: 'GET /payments/{id}/notes',
      capturePayment: 'POST /payments/{id}/captures',
    });
  });

  it('lists response statuses added and removed', () => {
    expect(
      changes((d) => {
        const responses = at(d, 'paths', '/payments/{id}/captures', 'post', 'responses');
        expect(responses['413']).toBeDefined();
        responses['409'] = { description: 'Conflict.' };
        delete responses['413'];
      }),
    ).toEqual(['capturePayment: response 409 added', 'capturePayment: response 413 removed']);
  });

  it('lists fields added, removed, type-changed and required-changed in a named schema, inside its allOf', () => {
    expect(
      changes((d) => {
        const member = (schemas(d).OperationResultCore as JsonObject).allOf as JsonObject[];
        const own = member.find((m) => m.properties) as JsonObject;
        const props = own.properties as JsonObject;
        props.settlementId = { type: 'string', maxLength: 32 };
        delete props.refNr;
        (props.merchantId as JsonObject).type = 'integer';
        own.required = [...((own.required as string[] | undefined) ?? []), 'xId'];
      }),
    ).toEqual([
      'OperationResultCore: field `merchantId`: type changed from string to integer',
      'OperationResultCore: field `xId` became required',
      'OperationResultCore: field `settlementId` added (optional, string)',
      'OperationResultCore: field `refNr` removed',
    ]);
  });

  it('lists enum values added and removed, with the operations that use the schema', () => {
    const head = structuredClone(doc);
    const channel = schemas(head).Channel as JsonObject;
    channel.enum = [...(channel.enum as string[]).filter((v) => v !== 'POS'), 'WALLET'];
    const log = changelog(doc, head);
    expect(log.entries.map((e) => `${e.subject}: ${e.text}`)).toEqual([
      'Channel: enum value `WALLET` added',
      'Channel: enum value `POS` removed',
    ]);
    expect(log.usage.Channel!.requests).toContain('createPayment');
  });

  it('lists security, response headers and constraints changed', () => {
    const base: JsonObject = {
      openapi: '3.1.1',
      info: { title: 'Tiny', version: '1.0.0' },
      security: [{ basicAuth: [] }],
      paths: {
        '/orders': {
          post: {
            operationId: 'createOrder',
            requestBody: {
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    properties: {
                      reference: { type: 'string', maxLength: 35 },
                      quantity: { type: 'integer', minimum: 1 },
                    },
                  },
                },
              },
            },
            responses: {
              '201': {
                description: 'Created.',
                headers: {
                  Location: { schema: { type: 'string' } },
                  'X-Request-Id': { required: true, schema: { type: 'string' } },
                },
              },
            },
          },
        },
      },
      components: {
        securitySchemes: {
          basicAuth: { type: 'http', scheme: 'basic' },
          bearerAuth: { type: 'http', scheme: 'bearer' },
        },
      },
    };
    const head = structuredClone(base);
    const op = at(head, 'paths', '/orders', 'post');
    op.security = [{ bearerAuth: [] }];
    const props = at(op, 'requestBody', 'content', 'application/json', 'schema', 'properties');
    (props.reference as JsonObject).maxLength = 64;
    (props.reference as JsonObject).pattern = '^[A-Z0-9-]+$';
    delete (props.quantity as JsonObject).minimum;
    const headers = at(op, 'responses', '201', 'headers');
    (headers.Location as JsonObject).required = true;
    delete headers['X-Request-Id'];
    headers['Idempotent-Replayed'] = { schema: { type: 'boolean' } };
    expect(changelog(base, head).entries.map((e) => `${e.subject}: ${e.text}`)).toEqual([
      'createOrder: accepts `bearerAuth`',
      'createOrder: no longer accepts `basicAuth`',
      'createOrder: request field `reference`: maxLength `35` → `64`',
      'createOrder: request field `reference`: pattern `^[A-Z0-9-]+$` added',
      'createOrder: request field `quantity`: minimum `1` removed',
      'createOrder: response 201 header `Location` became always sent',
      'createOrder: response 201 header `Idempotent-Replayed` added (optional)',
      'createOrder: response 201 header `X-Request-Id` removed',
    ]);
  });

  it('walks inline schemas of an operation: parameters, request and response fields, nested paths, enums, body schema swaps', () => {
    const base: JsonObject = {
      openapi: '3.1.1',
      info: { title: 'Tiny', version: '1.0.0' },
      paths: {
        '/orders': {
          post: {
            operationId: 'createOrder',
            parameters: [{ name: 'dryRun', in: 'query', schema: { type: 'boolean' } }],
            requestBody: {
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    required: ['items'],
                    properties: {
                      items: {
                        type: 'array',
                        items: { type: 'object', properties: { sku: { type: 'string' }, size: { enum: ['S', 'M'] } } },
                      },
                    },
                  },
                },
              },
            },
            responses: {
              '201': {
                description: 'Created.',
                content: {
                  'application/json': {
                    schema: { type: 'object', properties: { id: { type: 'string' }, total: { type: 'integer' } } },
                  },
                },
              },
              '400': {
                description: 'Invalid.',
                content: { 'application/json': { schema: { $ref: '#/components/schemas/Problem' } } },
              },
            },
          },
        },
      },
      components: { schemas: { Problem: { type: 'object' }, Error: { type: 'object' } } },
    };
    const head = structuredClone(base);
    const op = at(head, 'paths', '/orders', 'post');
    (op.parameters as JsonObject[]).push({
      name: 'Idempotency-Key',
      in: 'header',
      required: true,
      schema: { type: 'string' },
    });
    const item = at(op, 'requestBody', 'content', 'application/json', 'schema', 'properties', 'items', 'items');
    (item.properties as JsonObject).size = { enum: ['S', 'M', 'L'] };
    (item.properties as JsonObject).note = { type: 'string' };
    delete at(op, 'responses', '201', 'content', 'application/json', 'schema', 'properties').total;
    at(op, 'responses', '400', 'content', 'application/json').schema = { $ref: '#/components/schemas/Error' };
    expect(changelog(base, head).entries.map((e) => `${e.subject}: ${e.text}`)).toEqual([
      'createOrder: header parameter `Idempotency-Key` added (required)',
      'createOrder: request field `items[].size`: enum value `L` added',
      'createOrder: request field `items[].note` added (optional, string)',
      'createOrder: response 201 field `total` removed',
      'createOrder: response 400 body: schema changed from `Problem` to `Error`',
    ]);
  });

  it('sees no change when properties move between a schema and an allOf member of its own', () => {
    expect(
      changes((d) => {
        const s = schemas(d).PlanChargeRequest as JsonObject;
        const { properties, required, ...rest } = s;
        for (const k of Object.keys(s)) delete s[k];
        Object.assign(s, rest, { allOf: [{ type: 'object', required, properties }] });
      }),
    ).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------

const noBreaking = (over: Partial<BreakingResult> = {}): BreakingResult => ({
  ok: true,
  reason: 'no breaking changes',
  breaking: [],
  nonBreaking: [],
  accepted: false,
  approvals: { used: [], stale: [], expired: [], carried: [] },
  versions: { baseline: '2.0.0', current: '2.0.0' },
  summary: { major: 0, minor: 0, patch: 0 },
  files: { baseline: 'base', current: 'head' },
  ...over,
});

function fixture(over: Partial<ReportData> = {}): ReportData {
  return {
    base: { label: 'release 2.0.0', version: '2.0.0' },
    head: { label: 'the working tree', version: '2.0.0' },
    breaking: noBreaking(),
    changelog: changelog(doc, doc),
    provenance: { before: countProvenance(doc), after: countProvenance(doc) },
    ...over,
  };
}

describe('Markdown', () => {
  it('says when nothing changed, and what was not run', () => {
    const md = renderReport(fixture());
    expect(md).toContain('| Breaking changes | ✅ none |');
    expect(md).toContain(
      'No changes to operations, security, parameters, fields, constraints, enum values, statuses or headers.',
    );
    expect(md).toContain('Unchanged (`npm run provenance`)');
    expect(md).toContain('| Lint | ➖ not run |');
    expect(md).toContain('| Generated code | ➖ not checked |');
    expect(reportExitCode(fixture())).toBe(0);
  });

  it('shows provenance before and after: an operation that became inferred', () => {
    const head = structuredClone(doc);
    const op = at(head, 'paths', '/payments', 'post');
    expect(op['x-provenance']).toBeUndefined();
    op['x-provenance'] = 'inferred';
    const [before, after] = [countProvenance(doc), countProvenance(head)];
    const md = renderReport(fixture({ provenance: { before, after } }));
    const [d, i, t] = [before.operations.documented, before.operations.inferred, before.operations.total];
    expect(md).toContain(`| operations | ${d} → ${d - 1} (-1) | ${i} → ${i + 1} (+1) | ${t} |`);
    expect(md).toContain('Before → after');
  });

  it('lists the changelog grouped by operation and schema', () => {
    const head = structuredClone(doc);
    at(head, 'paths', '/payments', 'post', 'responses')['408'] = { description: 'Request timeout.' };
    (schemas(head).Channel as JsonObject).enum = [
      ...((schemas(head).Channel as JsonObject).enum as string[]),
      'WALLET',
    ];
    const md = renderReport(fixture({ changelog: changelog(doc, head) }));
    expect(md).toContain('- `createPayment` (`POST /payments`): response 408 added');
    expect(md).toMatch(/- `Channel` \(in requests of `[^`]+`.*\)\n {2}- enum value `WALLET` added/);
    expect(md).toContain('| Changelog | 2 added, 0 removed, 0 changed |');
  });

  it('lists lint problems and drifted files', () => {
    const lint: LintResult = {
      problems: [
        {
          tool: 'redocly',
          file: 'openapi/paths/payments.yaml',
          line: 7,
          col: 3,
          severity: 'warning',
          rule: 'operation-summary',
          message: 'Operation object should contain `summary` field.',
        },
      ],
      errors: 0,
      warnings: 1,
      ok: false,
      timingsMs: {},
    };
    const md = renderReport(
      fixture({
        lint,
        drift: {
          dir: 'generated/',
          files: [
            { path: 'types.ts', status: 'differs' },
            { path: 'docs/old.html', status: 'stale' },
          ],
        },
      }),
    );
    expect(md).toContain('| Lint | ❌ 0 error(s), 1 warning(s) |');
    expect(md).toContain(
      '- ⚠️ `openapi/paths/payments.yaml:7:3` warning `operation-summary`: Operation object should contain `summary` field.',
    );
    expect(md).toContain('| Generated code | ⚠️ 2 file(s) differ |');
    expect(md).toContain('- `generated/types.ts`: differs');
    expect(md).toContain('- `generated/docs/old.html`: no longer generated');
    // lint and drift inform; only breaking changes fail the report
    expect(reportExitCode(fixture({ lint }))).toBe(0);
    expect(renderReport(fixture({ drift: { dir: 'generated/', files: [] } }))).toContain(
      '| Generated code | ✅ up to date |',
    );
  });
});

describe('generated-code drift', () => {
  it('compares a fresh tree with the committed one: differs, missing, stale', async () => {
    const [fresh, committed] = [join(dir, 'fresh'), join(dir, 'committed')];
    await mkdir(join(fresh, 'docs'), { recursive: true });
    await mkdir(join(committed, 'docs'), { recursive: true });
    await Promise.all([
      writeFile(join(fresh, 'same.ts'), 'a'),
      writeFile(join(committed, 'same.ts'), 'a'),
      writeFile(join(fresh, 'types.ts'), 'new'),
      writeFile(join(committed, 'types.ts'), 'old'),
      writeFile(join(fresh, 'docs', 'new.html'), 'x'),
      writeFile(join(committed, 'docs', 'old.html'), 'y'),
    ]);
    expect(await compareTrees(fresh, committed)).toEqual([
      { path: 'docs/new.html', status: 'missing' },
      { path: 'docs/old.html', status: 'stale' },
      { path: 'types.ts', status: 'differs' },
    ]);
    expect(await compareTrees(committed, committed)).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------

/** A copy of openapi/ under <dir>/<name>/openapi, with `edits` applied to its files' text. */
async function sourceCopy(name: string, edits: Record<string, (text: string) => string>): Promise<string> {
  const project = join(dir, name);
  await cp(join(REPO_ROOT, 'openapi'), join(project, 'openapi'), { recursive: true });
  // The fixtures' changes are compared with today's contract: the repository's approvals name none of them.
  await writeFile(join(project, 'openapi', 'accepted-changes.yaml'), 'accepted: []\n');
  for (const [file, edit] of Object.entries(edits)) {
    const path = join(project, 'openapi', file);
    const before = await readFile(path, 'utf8');
    const after = edit(before);
    expect(after, `edit of ${file} changed nothing`).not.toBe(before);
    await writeFile(path, after);
  }
  return join(project, 'openapi', 'openapi.yaml');
}

const withoutPos = {
  'components/schemas/Channel.yaml': (t: string) =>
    t.replace('enum: [ECOM, MOTO, APP, PAYBYLINK, POS]', 'enum: [ECOM, MOTO, APP, PAYBYLINK]'),
};
const majorBump = { 'openapi.yaml': (t: string) => t.replace(/^( {2}version:) 2\.\d+\.\d+$/m, '$1 3.0.0') };

// Each report bundles a copy of the contract and diffs it (CPU-bound, two at once): on a loaded machine
// it takes several times its idle time, and only a hang should fail it.
describe.concurrent('breaking changes in the report', { timeout: 120_000 }, () => {
  let baseline: string;
  beforeAll(async () => {
    baseline = join(dir, 'baseline.json');
    await writeFile(baseline, JSON.stringify(doc, null, 2));
  });

  it('a breaking change without a major bump: listed at its source line, exit 1', async () => {
    const root = await sourceCopy('no-bump', withoutPos);
    const data = await collectReport({ base: baseline, root, lint: false, drift: false });
    expect(reportExitCode(data)).toBe(1);
    const md = renderReport(data);
    expect(md).toMatch(
      /\| `openapi\/components\/schemas\/Channel\.yaml:3` \| `enum-values-removed` \| Enum (of `.*` )?lost values: 'POS' \|/,
    );
    expect(md).toContain('| Breaking changes | ❌ 1, not accepted |');
    expect(md).toContain('**FAILED**: 1 breaking change(s)');
    expect(md).toContain('- `Channel`');
    expect(md).toContain('  - enum value `POS` removed');
  });

  it('the same change with a major bump: accepted, exit 0', async () => {
    const root = await sourceCopy('bump', { ...withoutPos, ...majorBump });
    const data = await collectReport({ base: baseline, root, lint: false, drift: false });
    expect(data.head.version).toBe('3.0.0');
    expect(reportExitCode(data)).toBe(0);
    const md = renderReport(data);
    expect(md).toContain('| Breaking changes | ⚠️ 1, accepted by the major version bump |');
    expect(md).toMatch(/\| Version \| `2\.\d+\.\d+` → `3\.0\.0` \(major bump\) \|/);
    expect(md).toContain('**OK**: 1 breaking change(s), accepted');
  });
});

describe('bases', () => {
  it('a version names the recorded release; an unknown name is an error', async () => {
    const release = await loadBase('v2.0.0');
    expect(release).toMatchObject({ kind: 'release', label: 'release 2.0.0 (`openapi/releases/2.0.0.yaml`)' });
    expect((release.document.info as JsonObject).version).toBe('2.0.0');
    await expect(loadBase('no-such-branch-or-release')).rejects.toThrow(BaseError);
    await expect(loadBase('9.9.9')).rejects.toThrow(/neither openapi\/releases\/9\.9\.9\.yaml nor a git tag v9\.9\.9/);
  });
});

// ---------------------------------------------------------------------------------------------

describe('npm run report, end to end on a temporary git repository', () => {
  let project: string;
  const git = (...args: string[]) => execFileSync('git', args, { cwd: project, stdio: 'pipe' }).toString();

  beforeAll(async () => {
    project = join(dir, 'repo');
    await cp(join(REPO_ROOT, 'openapi'), join(project, 'openapi'), { recursive: true });
    await cp(DEFAULT_OUT, join(project, 'generated'), { recursive: true });
    git('init', '-q', '-b', 'main');
    git('add', '.');
    git('-c', 'user.name=test', '-c', 'user.email=test@example.invalid', 'commit', '-q', '-m', 'base');
    git('tag', 'v7.0.0');
    // the change under review: an enum value added and one removed, a response field removed, an operation removed
    const edit = async (file: string, from: string | RegExp, to: string) => {
      const path = join(project, 'openapi', file);
      const text = await readFile(path, 'utf8');
      expect(text).toMatch(from);
      await writeFile(path, text.replace(from, to));
    };
    await edit('components/schemas/Channel.yaml', 'PAYBYLINK, POS]', 'PAYBYLINK, WALLET]');
    await edit('components/schemas/OperationResultCore.yaml', /^ {6}merchantId:\n(?: {8}.*\n)+/m, '');
    await edit('paths/payments@id@reversals.yaml', /^post:/m, 'x-removed-post:');
  }, 60_000);

  it('writes the Markdown to --out and exits 1 on the breaking changes', async () => {
    const out = join(project, 'report.md');
    const run = await runScript(
      'report',
      ['--base', 'main', '--root', 'openapi/openapi.yaml', '--generated', 'generated', '--out', 'report.md'],
      { cwd: project, env: NO_TARGET },
    );
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toBe('');
    const md = await readFile(out, 'utf8');
    expect(md).toMatch(/^Base: `main` at [0-9a-f]{7}\. Head: `openapi\/openapi\.yaml`\.$/m);
    // breaking changes at their source lines: the current file for a change, the base's for a removal
    expect(md).toMatch(/\| `openapi\/components\/schemas\/Channel\.yaml:3` \| `enum-values-removed` \|/);
    expect(md).toMatch(/\| `openapi\/paths\/payments@id@reversals\.yaml:\d+` \(base\) \| `operation-removed` \|/);
    // a property removed from a schema that others include through allOf: where it was declared
    const line =
      (await readFile(join(REPO_ROOT, 'openapi', 'components', 'schemas', 'OperationResultCore.yaml'), 'utf8'))
        .split('\n')
        .findIndex((l) => /^ {6}merchantId:/.test(l)) + 1;
    expect(md).toMatch(
      new RegExp(
        `\\| \`openapi/components/schemas/OperationResultCore\\.yaml:${line}\` \\(base\\) \\| \`property-removed\` \\| Property \`merchantId\` of \`\\w+\` was removed \\| [^|]* and \\d+ more \\| \`property-removed@#/components/schemas/OperationResultCore/allOf/1/properties/merchantId\``,
      ),
    );
    // once, though five schemas include it (redocly diff reports it at each)
    expect(md.match(/`property-removed@/g)).toHaveLength(1);
    expect(md).toContain('Why this base: --base main.');
    // the changelog
    expect(md).toContain('- `reversePayment` (`POST /payments/{id}/reversals`): operation removed');
    expect(md).toMatch(
      /- `Channel` \(in requests of [^\n]*\)\n {2}- enum value `WALLET` added\n {2}- enum value `POS` removed/,
    );
    expect(md).toMatch(/- `OperationResultCore` \(in [^\n]*responses of [^\n]*\)\n {2}- field `merchantId` removed/);
    // provenance before and after, the lint, and the drift of the committed generated/
    expect(md).toMatch(/\| operations \| \d+ \| \d+ → \d+ \(-1\) \| \d+ → \d+ \(-1\) \|/);
    expect(md).toMatch(/^### Lint\n\n(No problems\.|- )/m);
    expect(md).toContain('- `generated/openapi.json`: differs');
    expect(md).toContain('- `generated/types.ts`: differs');
    expect((await readdir(project)).filter((f) => f.endsWith('.tmp'))).toEqual([]); // written atomically, nothing left over
  }, 120_000);

  it('reads a release from its git tag when none is recorded', async () => {
    const base = await loadBase('7.0.0', {
      root: join(project, 'openapi', 'openapi.yaml'),
      releasesDir: join(project, 'no-releases'),
    });
    try {
      expect(base.kind).toBe('git');
      expect(base.label).toMatch(/^release 7\.0\.0 \(tag `v7\.0\.0`\) at [0-9a-f]{7}$/);
      expect(Object.keys(base.document.paths as JsonObject)).toContain('/payments/{id}/reversals');
      expect(existsSync(base.checkout!)).toBe(true);
    } finally {
      await base.dispose();
    }
    expect(existsSync(base.checkout!)).toBe(false);
  }, 60_000);
});
