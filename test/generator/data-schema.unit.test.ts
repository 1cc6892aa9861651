// The data file's JSON Schema step (generator/steps/data-schema.ts): the sandbox's own definitions
// with the contract's schemas they name copied from the bundle (and what those name), OpenAPI's own
// keywords and extensions left out, property names kept whatever they are called; a name that is
// neither, or a source that is not JSON, an error at its file and line.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderDataSchema } from '../../generator/steps/data-schema.js';
import { REPO_ROOT } from '../../generator/support/paths.js';
import { getAt, walkObjects } from '../../tooling/openapi/walker.js';
import { type JsonObject, loadBundle } from '../support/openapi.js';

const SOURCE = join(REPO_ROOT, 'sandbox', 'admin', 'data-file.schema.json');
const bundle = loadBundle();
const contractSchemas = (bundle.components as JsonObject).schemas as Record<string, JsonObject>;

type Defs = Record<string, JsonObject>;
const render = (text: string, path = SOURCE) =>
  JSON.parse(renderDataSchema({ path, text }, bundle)) as JsonObject & { $defs: Defs };
/** A source whose own definition `own` is all it has. */
const sourceWith = (own: JsonObject) =>
  JSON.stringify({ type: 'object', properties: { x: { $ref: '#/$defs/own' } }, $defs: { own } }, null, 2);

describe('the data file schema step', () => {
  it("is what generated/admin/data.schema.json holds: the source's $defs as written, then the contract's it needs", () => {
    const text = readFileSync(SOURCE, 'utf8');
    const rendered = renderDataSchema({ path: SOURCE, text }, bundle);
    expect(readFileSync(join(REPO_ROOT, 'generated', 'admin', 'data.schema.json'), 'utf8')).toBe(rendered);
    const own = (JSON.parse(text) as { $defs: Defs }).$defs;
    const names = Object.keys((JSON.parse(rendered) as { $defs: Defs }).$defs);
    expect(names.slice(0, Object.keys(own).length)).toEqual(Object.keys(own));
    expect(names).toEqual(expect.arrayContaining(['CurrencyCode', 'MinorUnitAmount', 'CustomerInfo', 'Address']));
  });

  it("copies the contract's constraints, its $refs pointing into $defs, without OpenAPI's keywords or extensions", () => {
    const { $defs } = render(readFileSync(SOURCE, 'utf8'));
    expect($defs.CurrencyCode).toMatchObject({ pattern: contractSchemas.CurrencyCode!.pattern });
    expect(Object.keys($defs.Address!.properties as JsonObject)).toEqual(
      Object.keys(contractSchemas.Address!.properties as JsonObject),
    );
    // CustomerInfo has a property called `title`: a name, never taken for the keyword
    expect(Object.keys($defs.CustomerInfo!.properties as JsonObject)).toEqual(
      Object.keys(contractSchemas.CustomerInfo!.properties as JsonObject),
    );
    expect(contractSchemas.CustomerInfo!.properties).toHaveProperty('title');
    const refs: string[] = [];
    const keys = new Set<string>();
    walkObjects($defs, (node, tokens) => {
      if (typeof node.$ref === 'string') refs.push(node.$ref);
      if (tokens.at(-1) !== 'properties') for (const key of Object.keys(node)) keys.add(key);
    });
    expect(refs.length).toBeGreaterThan(10);
    for (const ref of refs) {
      expect(ref).toMatch(/^#\/\$defs\//);
      expect(getAt({ $defs }, ref), ref).toBeDefined();
    }
    expect([...keys].filter((k) => k.startsWith('x-') || k === 'example')).toEqual([]);
    expect(JSON.stringify(contractSchemas)).toMatch(/"x-|"example"/);
  });

  it('copies exactly what a definition names, and what that names in turn', () => {
    const { $defs } = render(sourceWith({ $ref: '#/$defs/Address' }));
    const expected = new Set(['own', 'Address']);
    walkObjects(contractSchemas.Address, (node) => {
      if (typeof node.$ref === 'string') expected.add(node.$ref.split('/').at(-1)!);
    });
    expect(expected.size).toBeGreaterThan(2);
    expect(Object.keys($defs).sort()).toEqual([...expected].sort());
  });

  it('names a $ref that is neither a definition of the file nor a schema of the contract at its line', () => {
    const text = sourceWith({ type: 'object', properties: { a: { $ref: '#/$defs/NoSuchSchema' } } });
    const line = text.split('\n').findIndex((l) => l.includes('NoSuchSchema')) + 1;
    expect(() => render(text, '/project/data-file.schema.json')).toThrow(
      new RegExp(`data-file\\.schema\\.json:${line}:\\d+ error data-schema #/\\$defs/NoSuchSchema is neither`),
    );
  });

  it('takes a place inside a contract schema, and names one that is not there at its line', () => {
    const { $defs } = render(sourceWith({ $ref: '#/$defs/Address/properties/city' }));
    expect(Object.keys($defs)).toContain('Address');
    const text = sourceWith({ $ref: '#/$defs/Address/properties/noSuchField' });
    const line = text.split('\n').findIndex((l) => l.includes('noSuchField')) + 1;
    expect(() => render(text, '/project/data-file.schema.json')).toThrow(
      new RegExp(
        `data-file\\.schema\\.json:${line}:\\d+ error data-schema #/\\$defs/Address/properties/noSuchField names nothing in Address`,
      ),
    );
  });

  it('names a source that is not JSON at its line, and one without $defs', () => {
    expect(() => render('{\n  "type": "object",\n  "$defs": {\n', '/project/data-file.schema.json')).toThrow(
      /data-file\.schema\.json:\d+:\d+ error data-schema /,
    );
    expect(() => render('{ "type": "object" }', '/project/data-file.schema.json')).toThrow(
      /data-file\.schema\.json:1:1 error data-schema the data file's schema must be an object with \$defs/,
    );
  });
});
