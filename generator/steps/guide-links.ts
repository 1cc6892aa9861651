// Links from the docs guides (docs/guides/*.md) into the reference: `[text](#/<tag slug>)` and
// `[text](#/<tag slug>/<operationId in lower case>)`, Redoc's routes (operationAnchor). One parser
// for the lint (a renamed operationId or tag breaks a link: reported at the guide's line) and for
// the docs test (which follows each link on the rendered page).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { operations } from '../../tooling/openapi/walker.js';
import { operationAnchor, sectionSlug } from './docs.js';

/** A Markdown link to a section of the page: `](#/…)`. */
const LINK = /\]\((#\/[^)\s]+)\)/g;

export interface GuideLink {
  /** `#/payments/capturepayment` */
  target: string;
  /** the link's text: `Capture a payment` */
  text: string;
  /** offset of the `#` in the text */
  offset: number;
}

/** The in-page links of a guide's Markdown. */
export function guideLinks(markdown: string): GuideLink[] {
  return [...markdown.matchAll(LINK)].map((m) => {
    const open = markdown.lastIndexOf('[', m.index!);
    return { target: m[1]!, text: open < 0 ? '' : markdown.slice(open + 1, m.index!), offset: m.index! + 2 };
  });
}

export type GuideLinkRule = 'guide-link-unknown-tag' | 'guide-link-unknown-operation' | 'guide-link-unknown-section';

export interface GuideLinkProblem {
  file: string; // absolute
  line: number;
  col: number;
  rule: GuideLinkRule;
  message: string;
}

/**
 * Every link of the guides in `dir` that leads nowhere in `document`'s reference: an unknown tag
 * or guide, an operation that no tag shows, a heading that the guide does not have.
 */
export function checkGuideLinks(document: Record<string, unknown>, dir: string): GuideLinkProblem[] {
  if (!existsSync(dir)) return [];
  const guides = readdirSync(dir)
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => ({ file: join(dir, f), text: readFileSync(join(dir, f), 'utf8').replace(/\r\n/g, '\n') }));

  // slug → what is there: a tag's operations (lower-case id → anchor), or a guide's headings
  const operationsByTag = new Map<string, Map<string, string>>();
  const anchors = new Map<string, string[]>(); // lower-case operationId → its anchors
  const named = new Map<string, string>(); // summary or `METHOD /path`, lower case → operationId
  const tagSlugs = new Set<string>();
  for (const t of Array.isArray(document.tags) ? document.tags : [])
    if (t && typeof t === 'object' && 'name' in t) tagSlugs.add(sectionSlug(String(t.name)));
  for (const op of operations(document)) {
    const id = String(op.operation.operationId ?? '');
    if (typeof op.operation.summary === 'string') named.set(op.operation.summary.toLowerCase(), id);
    if (op.section === 'paths') named.set(`${op.method} ${op.key}`.toLowerCase(), id);
    for (const tag of op.operation.tags ?? []) {
      const slug = sectionSlug(String(tag));
      tagSlugs.add(slug);
      const ops = operationsByTag.get(slug) ?? operationsByTag.set(slug, new Map()).get(slug)!;
      ops.set(id.toLowerCase(), id);
      anchors.set(id.toLowerCase(), [...(anchors.get(id.toLowerCase()) ?? []), operationAnchor(String(tag), id)]);
    }
  }
  const guideHeadings = new Map<string, Set<string>>();
  for (const g of guides) {
    const title = /^# +(.+?) *$/m.exec(g.text)?.[1];
    if (title !== undefined)
      guideHeadings.set(
        sectionSlug(title),
        new Set([...g.text.matchAll(/^#{2,6} +(.+?) *#* *$/gm)].map((m) => sectionSlug(m[1]!))),
      );
  }

  const problems: GuideLinkProblem[] = [];
  for (const g of guides) {
    const lineStarts = [0, ...[...g.text.matchAll(/\n/g)].map((m) => m.index! + 1)];
    for (const link of guideLinks(g.text)) {
      const [first = '', second] = link.target.slice(2).split('/').map(decodeURIComponent);
      const found = judge(first, second, link.text);
      if (!found) continue;
      const lineIndex = lineStarts.findLastIndex((s) => s <= link.offset);
      problems.push({ file: g.file, line: lineIndex + 1, col: link.offset - lineStarts[lineIndex]! + 1, ...found });
    }
  }
  return problems;

  function judge(
    first: string,
    second: string | undefined,
    text: string,
  ): Pick<GuideLinkProblem, 'rule' | 'message'> | undefined {
    const isGuide = guideHeadings.has(first);
    if (!tagSlugs.has(first) && !isGuide) {
      const elsewhere = second !== undefined ? anchors.get(second) : undefined;
      const hint = elsewhere
        ? `: operation "${second}" is at ${elsewhere.join(', ')}`
        : suggestion(first, [...tagSlugs, ...guideHeadings.keys()]);
      return { rule: 'guide-link-unknown-tag', message: `link to tag "${first}" that does not exist${hint}` };
    }
    if (second === undefined) return undefined;
    if (isGuide) {
      if (guideHeadings.get(first)!.has(second)) return undefined;
      return {
        rule: 'guide-link-unknown-section',
        message: `link to section "${second}" that the guide "${first}" does not have${suggestion(second, [...guideHeadings.get(first)!])}`,
      };
    }
    if (operationsByTag.get(first)?.has(second)) return undefined;
    const elsewhere = anchors.get(second);
    if (elsewhere)
      return {
        rule: 'guide-link-unknown-operation',
        message: `link to operation "${second}" under tag "${first}", which does not show it: the operation is at ${elsewhere.join(', ')}`,
      };
    // a renamed operationId: the link's text often still names the operation (summary, or METHOD /path)
    const byText = named.get(text.replace(/`/g, '').trim().toLowerCase());
    const at = byText === undefined ? undefined : anchors.get(byText.toLowerCase());
    const hint = at ? ` (its text names ${byText}: ${at.join(', ')})` : suggestion(second, [...anchors.keys()]);
    return {
      rule: 'guide-link-unknown-operation',
      message: `link to operation "${second}" that does not exist${hint}`,
    };
  }
}

/** `; did you mean "x"?` for the nearest name within a few edits, else nothing. */
function suggestion(name: string, candidates: string[]): string {
  let best: [string, number] | undefined;
  for (const c of candidates) {
    const d = distance(name, c);
    if (d <= Math.max(2, Math.floor(name.length / 4)) && (!best || d < best[1])) best = [c, d];
  }
  return best ? ` (did you mean "${best[0]}"?)` : '';
}

function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]!;
}
