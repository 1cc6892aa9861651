// Validation errors as the contract's problems name them: field → messages.
import type { ErrorObject } from 'ajv/dist/2020.js';
import { escapeToken, parsePointer } from '../../tooling/openapi/walker.js';

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

/** What one Ajv error finds, and where: a missing or unknown field is named itself, not its object. */
export interface AjvFinding {
  /** The field's reference tokens from the validated value's root. */
  tokens: string[];
  /** `unknown`: a field the schema does not declare (additional or unevaluated). */
  kind: 'missing' | 'unknown' | 'invalid';
  message: string;
}

/** A field's reference tokens as a plain RFC 6901 pointer (`/a/b~1c`; the root is ''), as Ajv's instancePath. */
export const jsonPointer = (tokens: readonly string[]): string =>
  tokens.map((token) => `/${escapeToken(token)}`).join('');

/** The finding of one Ajv error (its instancePath is a plain RFC 6901 pointer: nothing percent-decoded). */
export function ajvFinding(e: ErrorObject): AjvFinding {
  const tokens = parsePointer(e.instancePath);
  const params = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return { tokens: [...tokens, String(params.missingProperty)], kind: 'missing', message: 'is required' };
    case 'additionalProperties':
    case 'unevaluatedProperties': {
      const field = params.additionalProperty ?? params.unevaluatedProperty;
      return { tokens: [...tokens, String(field)], kind: 'unknown', message: 'is not a known field' };
    }
    case 'enum':
      return {
        tokens,
        kind: 'invalid',
        message: `must be one of ${(params.allowedValues as unknown[]).map(String).join(', ')}`,
      };
    default:
      return { tokens, kind: 'invalid', message: e.message ?? 'is invalid' };
  }
}

/** Ajv errors as the contract's `errors` map: `amount.currency`, `urls.webhook`, `order.items[0].taxRate`. */
export function fieldErrors(errors: ErrorObject[], name: (path: string) => string): FieldErrors {
  const out = noFieldErrors();
  for (const e of errors) {
    // `if` only says that a `then` failed; the `then` errors are reported themselves.
    if (e.keyword === 'if') continue;
    const { tokens, message } = ajvFinding(e);
    const path = tokens.reduce((acc, s) => (/^\d+$/.test(s) ? `${acc}[${s}]` : acc ? `${acc}.${s}` : s), '');
    const field = name(path) || '(body)';
    out[field] ??= [];
    const list = out[field];
    if (!list.includes(message) && list.length < 50) list.push(message);
  }
  return out;
}
