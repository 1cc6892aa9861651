// The README is the front door and docs/ holds the manual: README.md stays short; every relative
// link of README.md and docs/*.md leads to a file that exists and, into a Markdown page, to one of
// its headings; no page promises work to come or cites an issue number; docs/testing.md gives every
// test file a row and names no file that is gone. Each check is first tried on a counter-example, so
// that a check that could no longer fail fails here.
// (docs/guides/ is not checked here: its links are the docs site's, checked by npm run lint.)
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const README = join(ROOT, 'README.md');
const MAX_README_LINES = 200;
const TESTING = join(ROOT, 'docs', 'testing.md');
/** The third-party generators' pinned project: its files are theirs, not tests of this repository. */
const THIRD_PARTY = 'test/generator/third-party-generators/';

/** README.md and the pages of docs/ (not docs/guides/). */
const PAGES = [
  README,
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => join(ROOT, 'docs', f)),
];

const FENCE = /^\s*(```|~~~)/;

/** The Markdown with fenced code blocks and inline code spans blanked (same length, line breaks kept). */
function prose(markdown: string): string {
  let fenced = false;
  return markdown
    .split('\n')
    .map((line) => {
      if (FENCE.test(line)) {
        fenced = !fenced;
        return '';
      }
      return fenced ? '' : line.replace(/`[^`\n]*`/g, (code) => ' '.repeat(code.length));
    })
    .join('\n');
}

/** The anchors GitHub gives the headings of a page: lower case, punctuation dropped, spaces as hyphens, -1, -2… for repeats. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (FENCE.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const text = heading[1]!
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/<[^>]+>/g, '')
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    let anchor = text;
    for (let n = 1; anchors.has(anchor); n++) anchor = `${text}-${n}`;
    anchors.add(anchor);
  }
  return anchors;
}

/** The relative links of a page (no scheme, not protocol-relative), outside code, with their line. */
function relativeLinks(markdown: string): Array<{ line: number; target: string }> {
  return prose(markdown)
    .split('\n')
    .flatMap((text, i) =>
      [...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => ({ line: i + 1, target: m[1]! })),
    )
    .filter(({ target }) => !/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith('//'));
}

/** Each relative link of the page at `file` (whose text is `markdown`) that leads nowhere, as `file:line target: why`. */
function brokenLinks(file: string, markdown = readFileSync(file, 'utf8')): string[] {
  const where = relative(ROOT, file);
  return relativeLinks(markdown).flatMap(({ line, target }) => {
    const [path = '', anchor] = target.split('#', 2) as [string, string | undefined];
    const destination = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
    if (path !== '' && !existsSync(destination)) return [`${where}:${line} ${target}: no such file`];
    if (anchor === undefined || !destination.endsWith('.md')) return [];
    const page = destination === file ? markdown : readFileSync(destination, 'utf8');
    return anchorsOf(page).has(decodeURIComponent(anchor).toLowerCase())
      ? []
      : [`${where}:${line} ${target}: no heading #${anchor} in ${relative(ROOT, destination)}`];
  });
}

/** Promises of future work and issue numbers in a page, as `line: text`. */
function promises(markdown: string): string[] {
  const pattern = /\bnext issues?\b|\bissues?\s*(?:no\.?\s*)?#?\d+|\(#\d+\)/i;
  return markdown.split('\n').flatMap((text, i) => (pattern.test(text) ? [`${i + 1}: ${text.trim()}`] : []));
}

/** The test files under test/, as paths from the root with `/` (what docs/testing.md writes). */
function testFiles(): string[] {
  return readdirSync(join(ROOT, 'test'), { recursive: true, encoding: 'utf8' })
    .map((file) => `test/${file.split(sep).join('/')}`)
    .filter((file) => file.endsWith('.test.ts') && !file.includes('/node_modules/') && !file.startsWith(THIRD_PARTY));
}

/** The backticked test paths of a Markdown text (globs included). */
function testPathsIn(text: string): string[] {
  return [...text.matchAll(/`(test\/[^`\s]*\.test\.ts)`/g)].map((m) => m[1]!);
}

/**
 * The test paths the rows of a page's tables name in their first cell: a file needs a row of its own,
 * not a mention in another file's row.
 */
function rowPaths(markdown: string): string[] {
  return markdown
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .flatMap((line) => testPathsIn(line.split('|')[1]!));
}

/** A glob as a pattern of whole paths: `*` stands for any characters within one path segment. */
function globPattern(glob: string): RegExp {
  const escaped = glob.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${escaped.join('[^/]*')}$`);
}

/** Where a page and the test files disagree: a file no row names, a named path no file has. */
function testListProblems(markdown: string, files: string[]): string[] {
  const rows = rowPaths(markdown);
  const globs = rows.filter((p) => p.includes('*')).map((glob) => ({ glob, pattern: globPattern(glob) }));
  const covered = (file: string) => rows.includes(file) || globs.some(({ pattern }) => pattern.test(file));
  const named = new Set(testPathsIn(markdown).filter((p) => !p.includes('*')));
  return [
    ...files.filter((file) => !covered(file)).map((file) => `no row: ${file}`),
    ...[...named].filter((path) => !files.includes(path)).map((path) => `no such test file: ${path}`),
    ...globs.filter(({ pattern }) => !files.some((f) => pattern.test(f))).map(({ glob }) => `no file matches: ${glob}`),
  ];
}

describe('the checks find what they look for', () => {
  it('a missing file, a missing heading, nothing in code', () => {
    const page = [
      '# A page',
      '',
      '## Watch mode: `npm run generate -- --watch`',
      '## The signature scheme (the contract’s design, *inferred*)',
      '## Repeated',
      '## Repeated',
      '',
      '[ok](#watch-mode-npm-run-generate------watch) [ok](#the-signature-scheme-the-contracts-design-inferred) [ok](#repeated-1)',
      '[ok](../README.md) [ok](../README.md#quick-start) [ok](https://example.com/nowhere.md) [ok](../test/)',
      '[`missing`](missing.md) [gone](#repeated-2) [gone](../README.md#no-such-heading)',
      '`[in code](in-code.md)`',
      '```md',
      '[in a fence](in-fence.md)',
      '```',
    ].join('\n');
    expect(brokenLinks(join(ROOT, 'docs', 'counter-example.md'), page)).toEqual([
      'docs/counter-example.md:10 missing.md: no such file',
      'docs/counter-example.md:10 #repeated-2: no heading #repeated-2 in docs/counter-example.md',
      'docs/counter-example.md:10 ../README.md#no-such-heading: no heading #no-such-heading in README.md',
    ]);
  });

  it('a test file without a row, a row for a file that is gone, a glob that matches nothing', () => {
    const page = [
      '| File | What it holds |',
      '|---|---|',
      '| `test/a/kept.test.ts` (unit) | A row of its own. |',
      '| `test/a/domain/*.unit.test.ts` | A glob row: one path segment. |',
      '| `test/a/gone.test.ts` | A file that was removed. |',
      '| `test/b/*.test.ts` | A glob that matches nothing. |',
      '| `test/a/other.test.ts` | Names `test/a/mentioned.test.ts`, which has no row of its own. |',
      '',
      '`test/a/prose.test.ts` is named outside a table; `test/a/stale-in-prose.test.ts` too.',
    ].join('\n');
    const files = [
      'test/a/kept.test.ts',
      'test/a/domain/pure.unit.test.ts',
      'test/a/domain/deeper/pure.unit.test.ts',
      'test/a/other.test.ts',
      'test/a/mentioned.test.ts',
      'test/a/prose.test.ts',
    ];
    expect(testListProblems(page, files)).toEqual([
      'no row: test/a/domain/deeper/pure.unit.test.ts',
      'no row: test/a/mentioned.test.ts',
      'no row: test/a/prose.test.ts',
      'no such test file: test/a/gone.test.ts',
      'no such test file: test/a/stale-in-prose.test.ts',
      'no file matches: test/b/*.test.ts',
    ]);
  });

  it('the test files are read from the tree, the third-party generators left out', () => {
    const files = testFiles();
    expect(files).toContain('test/contract/docs-pages.unit.test.ts');
    expect(files).toContain('test/architecture.unit.test.ts');
    expect(files.filter((file) => file.startsWith(THIRD_PARTY))).toEqual([]);
  });

  it('promises and issue numbers, not the word issue alone', () => {
    expect(
      promises(
        'the page itself comes with the next issue.\nsee issue 12\nfixed in (#34)\nthe writes that the issue requires\nissued on one root',
      ),
    ).toEqual(['1: the page itself comes with the next issue.', '2: see issue 12', '3: fixed in (#34)']);
  });
});

describe('README.md and docs/', () => {
  it(`README.md has at most ${MAX_README_LINES} lines`, () => {
    const lines = readFileSync(README, 'utf8').replace(/\n$/, '').split('\n').length;
    expect(lines).toBeLessThanOrEqual(MAX_README_LINES);
  });

  it('there are pages, and the README links each of them', () => {
    const readme = readFileSync(README, 'utf8');
    const pages = PAGES.filter((p) => p !== README).map((p) => relative(ROOT, p));
    expect(pages.length).toBeGreaterThan(0);
    expect(pages.filter((p) => !readme.includes(`](${p})`) && !readme.includes(`](${p}#`))).toEqual([]);
  });

  it.each(PAGES.map((p) => [relative(ROOT, p), p]))(
    '%s: every relative link leads to a file and heading that exist',
    (_, file) => {
      expect(brokenLinks(file)).toEqual([]);
    },
  );

  it('docs/testing.md gives every test file under test/ a row, and names no test file that is gone', () => {
    expect(testListProblems(readFileSync(TESTING, 'utf8'), testFiles())).toEqual([]);
  });

  it.each(PAGES.map((p) => [relative(ROOT, p), p]))('%s: no promise of future work, no issue number', (_, file) => {
    expect(promises(readFileSync(file, 'utf8'))).toEqual([]);
  });
});
