// The JSON Schema of the sandbox's data files (generated/admin/data.schema.json): the sandbox's own
// definitions (sandbox/admin/data-file.schema.json, beside the admin document) with every schema of
// the merchant contract they name as `#/$defs/<Name>` copied in from the bundle, and what those name
// in turn. A data file is held to the contract's own constraints, never to a copy that drifts.
import { relative } from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import { getAt, isObject, type JsonObject, parsePointer, subschemas } from '../../tooling/openapi/walker.js';
import { StepError } from '../support/step-error.js';

/** What a copied schema leaves out: OpenAPI's own keywords (not JSON Schema's) and extensions. */
const OPENAPI_KEYWORDS = new Set(['example', 'discriminator', 'xml', 'externalDocs']);
const CONTRACT_SCHEMAS = '#/components/schemas/';
const DEFINITIONS = '#/$defs/';

type Tokens = (string | number)[];

/** Every `$ref` in `schema` and its subschemas, with the tokens of the schema that holds it. */
function referencesIn(schema: unknown, at: Tokens, found: Array<{ ref: string; at: Tokens }> = []) {
  if (!isObject(schema)) return found;
  if (typeof schema.$ref === 'string') found.push({ ref: schema.$ref, at: [...at, '$ref'] });
  for (const [sub, rel] of subschemas(schema)) referencesIn(sub, [...at, ...rel], found);
  return found;
}

/** A contract schema as a definition of the data file's schema: its `$ref`s to `#/$defs/`, OpenAPI's keywords gone. */
function asDefinition(schema: JsonObject, name: string): JsonObject {
  const copy: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key.startsWith('x-') || OPENAPI_KEYWORDS.has(key)) continue;
    copy[key] = key === '$ref' ? definitionRef(String(value), name) : structuredClone(value);
  }
  for (const [sub, rel] of subschemas(schema)) {
    if (!isObject(sub)) continue;
    const holder = rel.slice(0, -1).reduce<JsonObject>((node, token) => node[token] as JsonObject, copy);
    holder[rel.at(-1)!] = asDefinition(sub, name);
  }
  return copy;
}

function definitionRef(ref: string, name: string): string {
  if (!ref.startsWith(CONTRACT_SCHEMAS))
    throw new StepError(`the contract's schema ${name} refers to ${ref}, which is not in the contract's schemas`);
  return `${DEFINITIONS}${ref.slice(CONTRACT_SCHEMAS.length)}`;
}

/** The source, parsed, with a way to name a place in it by file, line and column. */
function parseSource(path: string, text: string) {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  const where = (offset: number) => {
    const { line, col } = lines.linePos(offset);
    return `${relative(process.cwd(), path)}:${line}:${col}`;
  };
  const [error] = doc.errors;
  if (error) throw new StepError(`${where(error.pos[0])} error data-schema ${error.message.split('\n')[0]}`);
  const value = doc.toJS() as unknown;
  if (!isObject(value) || !isObject(value.$defs))
    throw new StepError(`${where(0)} error data-schema the data file's schema must be an object with $defs`);
  const at = (tokens: Tokens) => where((doc.getIn(tokens, true) as { range?: [number] } | undefined)?.range?.[0] ?? 0);
  return { value: value as JsonObject & { $defs: JsonObject }, at };
}

/**
 * The data file's schema from its source (`path`, `text`) and the contract's bundle: the source's
 * `$defs` as written, then the contract's schemas they need, by name. A `#/$defs/` name that is
 * neither is an error at its line.
 */
export function renderDataSchema(source: { path: string; text: string }, contract: JsonObject): string {
  const { value, at } = parseSource(source.path, source.text);
  const contractSchemas = ((contract.components as JsonObject | undefined)?.schemas ?? {}) as JsonObject;
  const own = new Set(Object.keys(value.$defs));
  const copied = new Map<string, JsonObject>();
  const need = (ref: string, where: () => string) => {
    if (!ref.startsWith(DEFINITIONS)) return;
    // a name, or a place inside the named definition: #/$defs/CardSummary/properties/cardHolderName
    const [, name, ...inside] = parsePointer(ref) as [string, string, ...string[]];
    if (!own.has(name) && !copied.has(name)) {
      const schema = contractSchemas[name];
      if (!isObject(schema))
        throw new StepError(
          `${where()} error data-schema ${ref} is neither one of the file's $defs nor a schema of the contract`,
        );
      const definition = asDefinition(schema, name);
      copied.set(name, definition);
      for (const inner of referencesIn(definition, [])) need(inner.ref, where);
    }
    if (getAt(copied.get(name) ?? value.$defs[name], inside) === undefined)
      throw new StepError(`${where()} error data-schema ${ref} names nothing in ${name}`);
  };
  // the root schema's subschemas include its $defs
  for (const { ref, at: refAt } of referencesIn(value, [])) need(ref, () => at(refAt));
  const names = [...copied.keys()].sort();
  const schema = { ...value, $defs: { ...value.$defs, ...Object.fromEntries(names.map((n) => [n, copied.get(n)])) } };
  return `${JSON.stringify(schema, null, 2)}\n`;
}
