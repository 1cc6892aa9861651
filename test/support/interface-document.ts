// Reads facts out of the interface document (interface/payment-service-interface.md), so that
// tests compare the contract with the document itself rather than with a second hand-made copy.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const INTERFACE_DOCUMENT_PATH = fileURLToPath(
  new URL('../../interface/payment-service-interface.md', import.meta.url),
);
export const interfaceDocument = readFileSync(INTERFACE_DOCUMENT_PATH, 'utf8');

export interface EndpointRow {
  method: string;
  path: string;
  /** text of the last column */
  payload: string;
}

/** Every `| METHOD | \`path\` | … |` row of the Endpoints part. */
export function endpointRows(): EndpointRow[] {
  const rows: EndpointRow[] = [];
  for (const line of interfaceDocument.split('\n')) {
    const m = /^\| (GET|POST|PUT|PATCH|DELETE) \| `([^`]+)` \| (.*) \|$/.exec(line);
    if (m) rows.push({ method: m[1].toLowerCase(), path: m[2], payload: m[3] });
  }
  return rows;
}

/** Throws unless the document contains `snippet` verbatim: anchors a fixture to its source. */
export function quote(snippet: string): string {
  if (!interfaceDocument.includes(snippet)) throw new Error(`the interface document does not say: ${snippet}`);
  return snippet;
}

/** The enum values a snippet lists, e.g. "enum `AUTOMATIC`, `MANUAL`" or "enum CIT|MIT". */
export function enumValues(snippet: string): string[] {
  const text = quote(snippet).replace(/^.*?\benum\b/, '');
  return [...text.matchAll(/[A-Z][A-Z0-9_]+/g)].map((m) => m[0]).filter((v) => v !== 'or');
}

/** Field names in the first column of the table that follows `heading`. */
export function tableFields(heading: string): string[] {
  const start = interfaceDocument.indexOf(quote(heading));
  const lines = interfaceDocument.slice(start).split('\n').slice(1);
  const fields: string[] = [];
  let inTable = false;
  for (const line of lines) {
    if (line.startsWith('|')) {
      inTable = true;
      const first = line.split('|')[1].trim();
      if (first && !/^-+$/.test(first) && first !== 'Field') fields.push(...first.split(',').map((f) => f.trim()));
    } else if (inTable) break;
  }
  return fields;
}
