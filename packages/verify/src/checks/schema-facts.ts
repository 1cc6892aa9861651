// What the checks read off the contract's schemas and problem bodies: which members a request body
// requires at a path, which fields a 400 names, and whether a business rule names a field.
import { getAt, isObject, parsePointer, requiredOf, schemaAt } from '../../../../tooling/openapi/walker.js';
import type { RunContext } from '../context.js';
import type { BusinessRule, OperationSpec } from '../contract.js';

/** The schema of an operation's request body, or undefined. */
export function bodySchema(ctx: RunContext, op: OperationSpec): unknown {
  return op.body?.schemaPointer
    ? getAt(ctx.contract.document, parsePointer(decodeURI(op.body.schemaPointer)))
    : undefined;
}

/** For requiredOnly: the names required at a member path of the operation's body. */
export function bodyRequiredAt(ctx: RunContext, op: OperationSpec): (path: string[]) => Set<string> | undefined {
  const root = bodySchema(ctx, op);
  return (path) => {
    const schema = schemaAt(ctx.contract.document, root, path);
    return schema === undefined ? undefined : requiredOf(ctx.contract.document, schema);
  };
}

/** The fields a validation problem names (the keys of its `errors`), or none. */
export function errorFields(body: unknown): string[] {
  return isObject(body) && isObject(body.errors) ? Object.keys(body.errors) : [];
}

/** Whether a 400's field is one the rule names (`*` any; `metadata` any member so named). */
export function ruleNamesField(rule: BusinessRule, field: string): boolean {
  if (rule.field === '*') return true;
  if (rule.field === 'metadata')
    return field === 'metadata' || field.endsWith('.metadata') || field.startsWith('metadata');
  return rule.field === field || field.startsWith(`${rule.field}.`);
}

/** Whether the field a problem names is the member path broken (or inside it, or its parent). */
export function namesMember(fields: string[], member: readonly string[]): boolean {
  const dotted = member.join('.');
  return fields.some(
    (f) => f === dotted || f.startsWith(`${dotted}.`) || f.startsWith(`${dotted}[`) || dotted.startsWith(`${f}.`),
  );
}
