// house-operation-examples: every request body and every response with `content` shows an
// `example` or `examples` on each media type (after $ref resolution), webhooks included:
// the examples feed the mock server and the documentation.
import { operations, deref, isObj } from './_oas.js';

const hasExample = (media) =>
  isObj(media) && (media.example !== undefined || (isObj(media.examples) && Object.keys(media.examples).length > 0));

export default function houseOperationExamples(doc) {
  const results = [];
  const seen = new Set(); // a shared response component is reported once, where it lives
  const check = (holder, path, what) => {
    const { node, path: where } = deref(doc, holder, path);
    if (!isObj(node) || !isObj(node.content)) return;
    for (const [mt, media] of Object.entries(node.content)) {
      const p = [...where, 'content', mt];
      const key = JSON.stringify(p);
      if (hasExample(media) || seen.has(key)) continue;
      seen.add(key);
      results.push({ message: `${what} media type "${mt}" has no example or examples.`, path: p });
    }
  };
  for (const { operation, path } of operations(doc)) {
    if (operation.requestBody !== undefined) check(operation.requestBody, [...path, 'requestBody'], 'Request body');
    if (isObj(operation.responses)) {
      for (const [code, r] of Object.entries(operation.responses)) check(r, [...path, 'responses', code], `Response ${code}`);
    }
  }
  return results;
}
