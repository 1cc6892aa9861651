// What the tests used to catch alone, npm run lint now reports at the source file and line: examples
// with undeclared or invalid members (generator/lint/examples.ts), guide links to operations or tags that
// do not exist (generator/steps/guide-links.ts), and YAML syntax errors (generator/lint/source-syntax.ts), each
// once. Fixture contracts are copies of openapi/ and docs/guides/ in temp dirs, each broken on purpose.
import { readdirSync } from 'node:fs';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChecksAnswer, LintWorker, startChecks } from '../../generator/lint/checks.js';
import { checkExamples } from '../../generator/lint/examples.js';
import { formatProblem, type LintResult, lintContract } from '../../generator/lint/lint.js';
import { checkSourceSyntax } from '../../generator/lint/source-syntax.js';
import { loadRuleset } from '../../generator/lint/spectral.js';
import { bundleContract } from '../../generator/steps/bundle.js';
import { checkGuideLinks, guideLinks } from '../../generator/steps/guide-links.js';
import { SPECTRAL_RULESET } from '../../generator/support/paths.js';

const REPO = join(import.meta.dirname, '..', '..');
const dirs: string[] = [];

/** A copy of the contract, its Redocly config (the lint-ignore file's paths are relative to it) and the guides. */
async function fixture(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'lint-source-'));
  dirs.push(dir);
  await cp(join(REPO, 'openapi'), join(dir, 'openapi'), { recursive: true });
  await cp(join(REPO, 'docs', 'guides'), join(dir, 'docs', 'guides'), { recursive: true });
  for (const f of ['redocly.yaml', '.redocly.lint-ignore.yaml']) await cp(join(REPO, f), join(dir, f));
  return dir;
}

const lint = (dir: string) =>
  lintContract({
    root: join(dir, 'openapi', 'openapi.yaml'),
    redoclyConfig: join(dir, 'redocly.yaml'),
    guidesDir: join(dir, 'docs', 'guides'),
  });

/** `file:line:col severity rule`, the part of each problem's line a test can know exactly. */
const heads = (r: LintResult) => r.problems.map((p) => `${p.file}:${p.line}:${p.col} ${p.severity} ${p.rule}`);

/** Edits a file; returns the 1-based line and column where `marker` is found after the edit. */
async function edit(
  file: string,
  change: (text: string) => string,
  marker: string,
): Promise<{ line: number; col: number }> {
  const text = change(await readFile(file, 'utf8'));
  await writeFile(file, text);
  const at = text.indexOf(marker);
  if (at < 0) throw new Error(`${marker} not in ${file}`);
  const before = text.slice(0, at).split('\n');
  return { line: before.length, col: before.at(-1)!.length + 1 };
}

afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe('npm run lint on the contract', () => {
  it('finds nothing: 0 errors, 0 warnings (examples and guide links included)', async () => {
    const result = await lintContract();
    expect(result.problems.map(formatProblem)).toEqual([]);
    // a check that ran is timed: its key is there (a check skipped leaves none)
    expect(Object.keys(result.timingsMs), 'the example check and the guide links ran').toEqual(
      expect.arrayContaining(['examples', 'guides']),
    );
  }, 120_000);
});

describe("Spectral's ruleset", () => {
  it('is bundled once, cached, and evaluated from the cache to the same rules', async () => {
    const cacheDir = await mkdtemp(join(tmpdir(), 'ruleset-cache-'));
    dirs.push(cacheDir);
    const bundled = await loadRuleset(SPECTRAL_RULESET, cacheDir);
    expect(readdirSync(join(cacheDir, 'spectral-ruleset'))).toHaveLength(1);
    const cached = await loadRuleset(SPECTRAL_RULESET, cacheDir);
    const rules = (r: typeof bundled) => Object.keys(r.rules).sort();
    expect(rules(cached)).toEqual(rules(bundled));
    expect(rules(bundled)).toEqual(expect.arrayContaining(['house-composition-shape']));
  }, 60_000);
});

describe('npm run lint on a broken copy', () => {
  let dir: string;
  let result: LintResult;
  const expected: string[] = [];

  beforeAll(async () => {
    dir = await fixture();
    const rel = (p: string) => relative(process.cwd(), join(dir, p));
    // 1. an undeclared property in an example component (the schema does not forbid it)
    const capture = 'openapi/components/examples/CaptureRequest.yaml';
    const undeclared = await edit(join(dir, capture), (t) => `${t.trimEnd()}\n  captureRef: abc\n`, 'captureRef');
    // 2. an example value of the wrong type, inline in a parameter
    const param = 'openapi/components/parameters/Page.yaml';
    const invalid = await edit(join(dir, param), (t) => t.replace(/^example: 1$/m, 'example: one'), 'example: one');
    // 3. an operationId renamed: the guide's link to it breaks, and so does the contract's link to it
    //    (house-links-resolve, at the link's own file)
    await edit(
      join(dir, 'openapi/paths/payments@id@captures.yaml'),
      (t) => t.replace('operationId: capturePayment', 'operationId: captureAuthorizedPayment'),
      'captureAuthorizedPayment',
    );
    const guide = 'docs/guides/02-payment-lifecycle.md';
    const link = await edit(join(dir, guide), (t) => t, '#/payments/capturepayment');
    const target = 'openapi/components/links/CapturePayment.yaml';
    const operationLink = await edit(join(dir, target), (t) => t, 'operationId: capturePayment');
    expected.push(
      `${rel(param)}:${invalid.line}:${invalid.col} error example-invalid`,
      `${rel(capture)}:${undeclared.line}:${undeclared.col} error example-undeclared-property`,
      `${rel(guide)}:${link.line}:${link.col} error guide-link-unknown-operation`,
      `${rel(target)}:${operationLink.line}:${operationLink.col} error house-links-resolve`,
    );
    result = await lint(dir);
  }, 120_000);

  it('reports exactly the four problems, once each, where they are in the source', () => {
    expect(heads(result).sort()).toEqual([...expected].sort());
    expect(result.errors).toBe(4);
    expect(result.ok).toBe(false);
  });

  it("lint's worker thread answers what its checks answer in this process", async () => {
    const root = join(dir, 'openapi', 'openapi.yaml');
    const bundle = await bundleContract({ root, config: join(dir, 'redocly.yaml') });
    const setup = { root, rulesetPath: SPECTRAL_RULESET, bundleName: 'generated/openapi.yaml' };
    const text = { root: bundle.root, json: bundle.json, yaml: bundle.yaml };
    const [inWorker, inProcess] = await Promise.all([
      new LintWorker(setup).check(text),
      startChecks(setup).check(text),
    ]);
    const comparable = (a: ChecksAnswer) => ({ ...a, timingsMs: Object.keys(a.timingsMs).sort() });
    expect(comparable(inProcess)).toEqual(comparable(inWorker));
    expect(inProcess.problems.map((p) => p.rule)).toEqual(
      expect.arrayContaining(['example-invalid', 'example-undeclared-property']),
    );
  }, 120_000);

  it('names the property path and the schema, and the missing operation', () => {
    const message = (rule: string) => result.problems.find((p) => p.rule === rule)?.message;
    expect(message('example-undeclared-property')).toBe('property captureRef is not declared by schema CaptureRequest');
    expect(message('example-invalid')).toMatch(
      /^the example must be integer \(against the schema at .*Page\.yaml:\d+\)$/,
    );
    // the link's text is the operation's summary: the hint finds the renamed operation
    expect(message('guide-link-unknown-operation')).toBe(
      'link to operation "capturepayment" that does not exist (its text names captureAuthorizedPayment: #/payments/captureauthorizedpayment)',
    );
    expect(message('house-links-resolve')).toBe(
      'Link\'s operationId "capturePayment" is not an operation of the document.',
    );
  });

  it('prints each as file:line:col severity rule message', () => {
    const line = formatProblem(result.problems.find((p) => p.rule === 'example-undeclared-property')!);
    expect(line).toMatch(
      /^\S+CaptureRequest\.yaml:\d+:3 error example-undeclared-property property captureRef is not declared by schema CaptureRequest$/,
    );
  });
});

describe('npm run lint on a copy with a YAML syntax error', () => {
  it("reports an unclosed '[' once, on its own line, with a hint, and nothing of Redocly's cascade", async () => {
    const dir = await fixture();
    const file = join(dir, 'openapi/paths/payments@id@captures.yaml');
    const at = await edit(file, (t) => t.replace('tags: [Payments]', 'tags: [Payments'), '[Payments');
    expect(at.line).toBe(4);
    const result = await lint(dir);
    expect(heads(result)).toEqual([`${relative(process.cwd(), file)}:4:${at.col} error yaml-syntax`]);
    expect(result.problems[0]!.message).toMatch(
      /^a '\[' opened on line 4 is never closed: add the '\]' \(the YAML parser noticed at 5:3: /,
    );
  }, 120_000);
});

describe('the checks on their own', () => {
  it('yaml-syntax: the first error of each reachable file, at the opening of an unclosed collection or quote; what the bundler cannot read, as its parser says', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lint-syntax-'));
    dirs.push(dir);
    const files: Record<string, string> = {
      'root.yaml':
        'a:\n  $ref: ./map.yaml\nb:\n  $ref: ./quote.yaml\nc:\n  $ref: ./tab.yaml\nd:\n  $ref: ./fine.yaml\ne:\n  $ref: ./notes.md\nf:\n  $ref: ./twice.yaml\ng:\n  $ref: ./alias.yaml\n',
      'map.yaml': 'x:\n  y: {k: 1\nz: 2\n',
      'quote.yaml': 'x:\n  y: "open\nz: 2\n',
      'tab.yaml': 'x:\n\t- 1\n',
      'fine.yaml': 'x: [1, 2]\ny: "closed"\nz:\n  $ref: ./unreached.yaml\n',
      'unreached.yaml': 'a: [\n',
      'notes.md': '# Not YAML: [ {\n',
      'twice.yaml': 'x: 1\nx: 2\n',
      // YAML the `yaml` package parses, but js-yaml (Redocly's bundler) cannot read
      'alias.yaml': 'x: *nowhere\n',
    };
    for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
    // unreached.yaml is reached through fine.yaml: it is reported too
    const found = checkSourceSyntax(join(dir, 'root.yaml')).map(
      (p) => `${relative(dir, p.file)}:${p.line}:${p.col} ${p.message.split(' (')[0]}`,
    );
    expect(found).toEqual([
      "map.yaml:2:6 a '{' opened on line 2 is never closed: add the '}'",
      `quote.yaml:2:6 a '"' opened on line 2 is never closed: add the '"'`,
      'tab.yaml:2:1 Tabs are not allowed as indentation: indent with spaces, not tabs',
      'twice.yaml:2:1 Map keys must be unique: a key may appear only once in a mapping',
      'alias.yaml:1:12 unidentified alias "nowhere"',
      "unreached.yaml:1:4 a '[' opened on line 1 is never closed: add the ']'",
    ]);
  });

  const doc = {
    openapi: '3.1.1',
    info: { title: 't', version: '1' },
    tags: [{ name: 'Things' }, { name: 'Other things' }],
    paths: {
      '/things': {
        post: {
          operationId: 'createThing',
          summary: 'Create a thing',
          tags: ['Things'],
          requestBody: {
            content: {
              'application/json': {
                schema: { $ref: '#/components/schemas/Thing' },
                examples: { ok: { value: { name: 'a', size: 1 } }, bad: { $ref: '#/components/examples/Bad' } },
              },
            },
          },
          responses: { '204': { description: 'ok' } },
        },
      },
    },
    components: {
      schemas: {
        Thing: {
          type: 'object',
          properties: {
            name: { type: 'string' },
            size: { type: 'integer' },
            closed: { $ref: '#/components/schemas/Closed' },
          },
        },
        Closed: { type: 'object', additionalProperties: false, properties: { a: { type: 'string' } } },
      },
      examples: { Bad: { value: { name: 'b', size: 'big', extra: true, closed: { a: 'x', b: 'y' } } } },
    },
  };

  it('examples: undeclared members (open or closed schema) once each, invalid members with every message', () => {
    const found = checkExamples(doc).map((f) => `${f.rule} ${f.case.at.join('/')} ${f.path.join('.')}: ${f.detail}`);
    expect(found.sort()).toEqual([
      'example-invalid components/examples/Bad/value size: must be integer',
      'example-undeclared-property components/examples/Bad/value closed.b: is not declared',
      'example-undeclared-property components/examples/Bad/value extra: is not declared',
    ]);
  });

  it('guide links: one parser (the docs test follows the same links on the page); unknown tag, operation, section', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lint-guides-'));
    dirs.push(dir);
    const text = [
      '# A guide',
      'Fine: [create](#/things/creatething), [tag](#/other-things), [guide](#/a-guide), [section](#/a-guide/details).',
      'Broken: [x](#/thing/creatething) [y](#/things/createthings)',
      '[z](#/other-things/creatething) [w](#/a-guide/detail) [v](#/nothing)',
      '[`POST /things`](#/things/makething)',
      '## Details',
    ].join('\n');
    await writeFile(join(dir, '01-a.md'), text);
    expect(guideLinks(text).slice(0, 2)).toEqual([
      { target: '#/things/creatething', text: 'create', offset: text.indexOf('#/things/creatething') },
      { target: '#/other-things', text: 'tag', offset: text.indexOf('#/other-things)') },
    ]);
    const found = checkGuideLinks(doc, dir).map((p) => `${p.line}:${p.col} ${p.rule} ${p.message}`);
    expect(found).toEqual([
      '3:13 guide-link-unknown-tag link to tag "thing" that does not exist: operation "creatething" is at #/things/creatething',
      '3:38 guide-link-unknown-operation link to operation "createthings" that does not exist (did you mean "creatething"?)',
      '4:5 guide-link-unknown-operation link to operation "creatething" under tag "other-things", which does not show it: the operation is at #/things/creatething',
      '4:37 guide-link-unknown-section link to section "detail" that the guide "a-guide" does not have (did you mean "details"?)',
      '4:59 guide-link-unknown-tag link to tag "nothing" that does not exist',
      '5:18 guide-link-unknown-operation link to operation "makething" that does not exist (its text names createThing: #/things/creatething)',
    ]);
  });
});

describe('a house rule in npm run lint', () => {
  it('is reported at the source file and line (house-composition-shape)', async () => {
    const dir = await fixture();
    const file = join(dir, 'openapi', 'components', 'schemas', 'Amount.yaml');
    const lines = (await readFile(file, 'utf8')).split('\n');
    const at = lines.findIndex((l) => l.startsWith('allOf:'));
    lines.splice(at, 0, 'minProperties: 1');
    await writeFile(file, lines.join('\n'));
    const result = await lint(dir);
    const problem = result.problems.find((p) => p.rule === 'house-composition-shape');
    expect(problem, JSON.stringify(result.problems.slice(0, 5))).toMatchObject({ severity: 'error', line: at + 1 });
    expect(problem!.file.endsWith(join('components', 'schemas', 'Amount.yaml'))).toBe(true);
    expect(result.ok).toBe(false);
  }, 60_000);
});
