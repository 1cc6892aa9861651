// The contract's links in the docs (generator/steps/docs.ts): neither Redoc (the reference) nor
// Scalar (the console) renders Link Objects, so the decorated copy words each response's links at
// the end of its operation's description — target (linked to its section in the reference, named
// only in the console), parameters with their runtime expressions, the badged reason — and drops
// the Link Objects. test/e2e/docs.test.ts follows one on the page.
import { describe, expect, it } from 'vitest';
import { decorateForDocs, INFERRED_BADGE, linksSection, operationAnchor } from '../../generator/steps/docs.js';
import { deref, operationById, operations, walkObjects } from '../../tooling/openapi/walker.js';
import { type JsonObject, loadBundle } from '../support/openapi.js';

const bundle = loadBundle();
const reference = decorateForDocs(bundle, []) as JsonObject;
const console_ = decorateForDocs(bundle, [], { anchors: false }) as JsonObject;

/** Every use of a link in the contract: [operationId, status, the link]. */
const uses = operations(bundle).flatMap(({ operation }) =>
  Object.entries(operation.responses ?? {}).flatMap(([status, raw]) =>
    Object.values((deref<JsonObject>(bundle, raw).links ?? {}) as JsonObject).map(
      (link) => [String(operation.operationId), status, deref<JsonObject>(bundle, link)] as const,
    ),
  ),
);
const description = (doc: JsonObject, operationId: string) =>
  String(operationById(doc, operationId).operation.description);
const line = (doc: JsonObject, operationId: string, target: string) =>
  description(doc, operationId)
    .split('\n')
    .find((l) => l.startsWith('- ') && l.includes(`(\`${target}\`)`));

describe('links in the docs', () => {
  it('every link of the contract is worded in its operation, with its parameters and its badged reason', () => {
    expect(uses.length).toBeGreaterThan(50);
    for (const [source, status, link] of uses) {
      const target = operationById(bundle, String(link.operationId)).operation;
      expect(description(reference, source), `${source}`).toContain(`**Links** of the ${status} answer`);
      const text = line(reference, source, String(link.operationId));
      expect(text, `${source} ${status} → ${link.operationId}`).toBeDefined();
      // the target's summary, linked to its section of the reference (the anchors the SDK and the guides use)
      expect(text).toContain(
        `[${target.summary}](${operationAnchor(String(target.tags![0]), String(target.operationId))})`,
      );
      for (const [name, expression] of Object.entries((link.parameters ?? {}) as Record<string, string>))
        expect(text).toContain(`\`${name}\` ← \`${expression}\``);
      expect(text).toContain(INFERRED_BADGE);
      expect(text).toContain(String(link.description).replace(/^Inferred: links/, 'Links'));
      // the console names the target without Redoc's anchor
      const inConsole = line(console_, source, String(link.operationId));
      expect(inConsole).toContain(`**${target.summary}** (\`${target.operationId}\`)`);
      expect(inConsole).not.toContain('](#/');
    }
  });

  it('drops the Link Objects from the copy, leaves the contract alone, and adds nothing where there are none', () => {
    for (const doc of [reference, console_]) {
      const left: string[] = [];
      walkObjects(doc, (node, tokens) => {
        if ('links' in node && tokens.at(-2) === 'responses') left.push(tokens.join('/'));
      });
      expect(left).toEqual([]);
      expect((doc.components as JsonObject).links).toBeUndefined();
    }
    expect(Object.keys((bundle.components as JsonObject).links as JsonObject).length).toBeGreaterThan(10);
    const plain = operationById(bundle, 'checkDccBin').operation as JsonObject;
    expect(linksSection(bundle, plain, true)).toBeUndefined();
    expect(description(reference, 'checkDccBin')).not.toContain('**Links**');
  });

  it('keeps the badge at the head of an inferred operation that has links (the badges come first)', () => {
    // getCustomer is inferred and has no business rules: its description starts with the badge
    expect(operationById(bundle, 'getCustomer').operation['x-provenance']).toBe('inferred');
    expect(description(reference, 'getCustomer').startsWith(INFERRED_BADGE)).toBe(true);
  });
});
