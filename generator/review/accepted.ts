import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { isMap, isScalar, isSeq, LineCounter, type Node, parseDocument } from 'yaml';

// The reviewed list of breaking changes let through on purpose (openapi/accepted-changes.yaml).
// Each entry names one change by the id the gate prints for it (`<rule>@<JSON pointer>`), with the
// reason, who approved it and, optionally, the last day the approval holds. The gate fails on an
// entry that matches nothing (an approval outlives its change) and on an expired one.

/** The file's name, next to the contract's root (openapi/openapi.yaml). */
export const ACCEPTED_FILE = 'accepted-changes.yaml';

export interface AcceptedEntry {
  /** `<rule>@<JSON pointer in the bundle>`, as the gate prints it. */
  id: string;
  reason: string;
  approvedBy: string;
  /** `YYYY-MM-DD`: the approval holds through that day (UTC). */
  expires?: string;
  /** Where the entry is, for messages: the file as named to the reader, and the line of its `id`. */
  file: string;
  line: number;
}

/** The file does not have the shape above; the message names the file, the line and the field. */
export class AcceptedChangesError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AcceptedChangesError';
  }
}

const ID = /^[A-Za-z0-9][\w-]*@#(\/[^\s]*)?$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const FIELDS = ['id', 'reason', 'approvedBy', 'expires'];

/** The entries of `file` (none when the file does not exist). `name` is how messages name the file. */
export async function loadAcceptedChanges(file: string, name = rel(file)): Promise<AcceptedEntry[]> {
  if (!existsSync(file)) return [];
  return parseAcceptedChanges(await readFile(file, 'utf8'), name);
}

export function parseAcceptedChanges(text: string, name: string): AcceptedEntry[] {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const lineOf = (node: Node | null | undefined) => lines.linePos(node?.range?.[0] ?? 0).line;
  const fail = (node: Node | null | undefined, message: string): never => {
    throw new AcceptedChangesError(`${name}:${lineOf(node)}: ${message}`);
  };
  const [syntax] = doc.errors;
  if (syntax) throw new AcceptedChangesError(`${name}:${lines.linePos(syntax.pos[0]).line}: ${syntax.message}`);
  const top = doc.contents;
  if (top === null || (isScalar(top) && top.value === null)) return [];
  if (!isMap(top)) return fail(top, 'expected a mapping with the key `accepted` (a list of entries)');
  for (const pair of top.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : '';
    if (key !== 'accepted') fail(pair.key as Node, `unknown key \`${key}\`: the file holds \`accepted\` only`);
  }
  const list = top.get('accepted', true) as Node | undefined;
  if (list === undefined || (isScalar(list) && list.value === null)) return [];
  if (!isSeq(list)) return fail(list, '`accepted` must be a list of entries');

  const entries: AcceptedEntry[] = [];
  const firstLine = new Map<string, number>();
  for (const [i, item] of list.items.entries()) {
    const itemNode = item as Node;
    const what = `entry ${i + 1}`;
    if (!isMap(itemNode)) return fail(itemNode, `${what}: expected a mapping with id, reason, approvedBy and expires`);
    const fields = new Map<string, { value: unknown; node: Node }>();
    for (const pair of itemNode.items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : '';
      if (!FIELDS.includes(key))
        fail(pair.key as Node, `${what}: unknown field \`${key}\` (fields: ${FIELDS.join(', ')})`);
      const node = (pair.value ?? pair.key) as Node;
      fields.set(key, { value: isScalar(node) ? node.value : node, node });
    }
    const text = (field: string, pattern?: RegExp, hint?: string): string | undefined => {
      const got = fields.get(field);
      if (!got) return undefined;
      if (typeof got.value !== 'string' || got.value.trim() === '')
        fail(got.node, `${what}: field \`${field}\` must be a non-empty string`);
      if (pattern && !pattern.test(got.value as string))
        fail(got.node, `${what}: field \`${field}\` ${hint}, got '${got.value}'`);
      return (got.value as string).trim();
    };
    const required = (field: string, pattern?: RegExp, hint?: string): string =>
      text(field, pattern, hint) ?? fail(itemNode, `${what}: field \`${field}\` is missing`);
    const id = required('id', ID, 'must be `<rule>@<JSON pointer>` as the gate prints it');
    const reason = required('reason');
    const approvedBy = required('approvedBy');
    const expires = text('expires', DATE, 'must be a date YYYY-MM-DD');
    if (expires !== undefined && !validDate(expires))
      fail(fields.get('expires')!.node, `${what}: field \`expires\` is not a calendar date: '${expires}'`);
    const line = lineOf(fields.get('id')!.node);
    const earlier = firstLine.get(id);
    if (earlier !== undefined)
      fail(fields.get('id')!.node, `${what}: id ${id} is listed twice (first on line ${earlier})`);
    firstLine.set(id, line);
    entries.push({ id, reason, approvedBy, expires, file: name, line });
  }
  return entries;
}

function validDate(date: string): boolean {
  const [, y, m, d] = DATE.exec(date)!.map(Number) as [number, number, number, number];
  const t = new Date(Date.UTC(y, m - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === m - 1 && t.getUTCDate() === d;
}

/** Today as `YYYY-MM-DD` (UTC). */
export const today = (): string => new Date().toISOString().slice(0, 10);

/** The entry no longer accepts anything: its last day is before `day`. */
export const isExpired = (entry: Pick<AcceptedEntry, 'expires'>, day: string): boolean =>
  entry.expires !== undefined && entry.expires < day;

/** The same entry in the base's file: the approval of a change the base already has. */
export const sameEntry = (a: AcceptedEntry, b: AcceptedEntry): boolean =>
  a.id === b.id && a.reason === b.reason && a.approvedBy === b.approvedBy && a.expires === b.expires;

/** `file:line`. */
export const entryAt = (entry: AcceptedEntry): string => `${entry.file}:${entry.line}`;

/**
 * The head's entries and the base's (the same file in the base's tree, when the base has one).
 * Throws AcceptedChangesError when either file is malformed.
 */
export async function loadAcceptedPair(
  file: string,
  baseFile: string | undefined,
  name = rel(file),
): Promise<{ entries: AcceptedEntry[]; baseEntries: AcceptedEntry[] }> {
  const [entries, baseEntries] = await Promise.all([
    loadAcceptedChanges(file, name),
    baseFile ? loadAcceptedChanges(baseFile, `${name} (in the base)`) : [],
  ]);
  return { entries, baseEntries };
}
const rel = (p: string) => relative(process.cwd(), p) || '.';
