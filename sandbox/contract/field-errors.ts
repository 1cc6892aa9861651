// Validation errors as the contract's problems name them: field → messages.
import type { ErrorObject } from 'ajv/dist/2020.js';
import { parsePointer } from '../../tooling/openapi/walker.js';

/**
 * Field → messages, the `errors` map of the contract's validation problems. Its keys are the
 * client's (an unknown query parameter, a form field), so a map is made without a prototype: a
 * field named `constructor` or `__proto__` is a field like any other.
 */
export type FieldErrors = Record<string, string[]>;

/** An empty FieldErrors without a prototype. */
export const noFieldErrors = (): FieldErrors => Object.create(null) as FieldErrors;

/** `maps` merged, into a FieldErrors without a prototype (as a spread would: a later map's field wins). */
export function mergeFieldErrors(...maps: Array<FieldErrors | undefined>): FieldErrors {
  const out = noFieldErrors();
  for (const map of maps) {
    if (!map) continue;
    for (const field of Object.keys(map)) out[field] = map[field]!;
  }
  return out;
}

/** Ajv errors as the contract's `errors` map: `amount.currency`, `urls.webhook`, `order.items[0].taxRate`. */
export function fieldErrors(errors: ErrorObject[], name: (path: string) => string): FieldErrors {
  const out = noFieldErrors();
  for (const e of errors) {
    // `if` only says that a `then` failed; the `then` errors are reported themselves.
    if (e.keyword === 'if') continue;
    const segments = e.instancePath === '' ? [] : parsePointer(e.instancePath);
    let message = e.message ?? 'is invalid';
    if (e.keyword === 'required') {
      segments.push(String((e.params as { missingProperty: string }).missingProperty));
      message = 'is required';
    } else if (e.keyword === 'additionalProperties') {
      segments.push(String((e.params as { additionalProperty: string }).additionalProperty));
      message = 'is not a known field';
    } else if (e.keyword === 'enum') {
      message = `must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.map(String).join(', ')}`;
    }
    const path = segments.reduce((acc, s) => (/^\d+$/.test(s) ? `${acc}[${s}]` : acc ? `${acc}.${s}` : s), '');
    const field = name(path) || '(body)';
    out[field] ??= [];
    const list = out[field];
    if (!list.includes(message) && list.length < 50) list.push(message);
  }
  return out;
}
