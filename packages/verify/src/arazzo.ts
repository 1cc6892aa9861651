// A small Arazzo 1.0.1 runner for the workflows this contract ships: steps that name an operation
// (of the contract, or of the hosted page's description), parameters, `x-security`, payloads with
// runtime expressions (`$inputs.x`, `$steps.s.outputs.o`, `$response.body#/ptr`,
// `$response.header.Name`, `$statusCode`, embedded as `{$…}`), simple, regex and JSONPath (RFC 9535)
// criteria, outputs and `goto`. Unlike an engine that stops at the first failed step, it goes on,
// so one bug does not hide the next, and it reports each failed criterion with the value it saw.
import { query } from 'jsonpath-rfc9535';
import { getAt, isObject, type JsonObject, parsePointer } from '../../../tooling/openapi/walker.js';

export interface StepResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
  json: unknown;
  curl: string;
}

export interface StepRequest {
  /** `source.operationId` or the bare operationId. */
  operation: string;
  params: Record<string, string>;
  query: Record<string, string>;
  headers: Record<string, string>;
  body?: unknown;
  contentType?: string;
}

export interface CriterionVerdict {
  stepId: string;
  operation: string;
  condition: string;
  passed: boolean;
  /** What the condition's left side evaluated to, for a failure. */
  actual: string;
  curl: string;
}

interface Scope {
  inputs: JsonObject;
  steps: Record<string, { outputs: JsonObject }>;
  response?: StepResponse;
}

const MAX_STEPS = 200;

/** The value of one runtime expression (`$inputs.a`, `$response.body#/x/0`, …), or undefined. */
export function evaluate(expression: string, scope: Scope): unknown {
  const e = expression.trim();
  if (e === '$statusCode') return scope.response?.status;
  if (e.startsWith('$response.body')) {
    const pointer = e.slice('$response.body'.length);
    if (pointer === '') return scope.response?.json ?? scope.response?.text;
    return getAt(scope.response?.json, parsePointer(pointer));
  }
  if (e.startsWith('$response.header.'))
    return scope.response?.headers[e.slice('$response.header.'.length).toLowerCase()];
  if (e.startsWith('$inputs.')) return getAt(scope.inputs, e.slice('$inputs.'.length).split('.'));
  if (e.startsWith('$steps.')) {
    const [stepId, kind, ...rest] = e.slice('$steps.'.length).split('.');
    return kind === 'outputs' ? scope.steps[stepId!]?.outputs[rest.join('.')] : undefined;
  }
  return undefined;
}

/** A payload or parameter value with its expressions evaluated (`{$…}` inside strings too). */
export function resolveValue(value: unknown, scope: Scope): unknown {
  if (typeof value === 'string') {
    if (value.startsWith('$') && !value.includes(' ')) return evaluate(value, scope);
    return value.replace(/\{(\$[^}]+)\}/g, (_m, e: string) => String(evaluate(e, scope) ?? ''));
  }
  if (Array.isArray(value)) return value.map((v) => resolveValue(v, scope));
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveValue(v, scope)]));
  return value;
}

function literal(text: string, scope: Scope): unknown {
  const t = text.trim();
  if (t.startsWith('$')) return evaluate(t, scope);
  if (/^'.*'$/.test(t)) return t.slice(1, -1);
  if (t === 'true' || t === 'false') return t === 'true';
  if (t === 'null') return null;
  if (t !== '' && !Number.isNaN(Number(t))) return Number(t);
  return t;
}

/** A simple condition (`a == b`, `<`, `<=`, `>`, `>=`, `!=`): whether it holds, and its left side. */
export function simpleCondition(condition: string, scope: Scope): { holds: boolean; left: unknown } {
  const match = /^(.*?)\s*(==|!=|<=|>=|<|>)\s*(.*)$/.exec(condition.trim());
  if (!match) {
    const left = literal(condition, scope);
    return { holds: Boolean(left), left };
  }
  const left = literal(match[1]!, scope);
  const right = literal(match[3]!, scope);
  const l = typeof right === 'number' && typeof left === 'string' && left !== '' ? Number(left) : left;
  const r = typeof left === 'number' && typeof right === 'string' && right !== '' ? Number(right) : right;
  const holds = {
    '==': l === r,
    '!=': l !== r,
    '<': (l as number) < (r as number),
    '<=': (l as number) <= (r as number),
    '>': (l as number) > (r as number),
    '>=': (l as number) >= (r as number),
  }[match[2] as '==' | '!=' | '<' | '<=' | '>' | '>='];
  return { holds, left };
}

function criterion(c: JsonObject, scope: Scope): { holds: boolean; actual: string } {
  const condition = String(c.condition);
  const type = typeof c.type === 'string' ? c.type : isObject(c.type) ? String(c.type.type) : 'simple';
  if (type === 'regex') {
    const context = String(evaluate(String(c.context), scope) ?? '');
    return { holds: new RegExp(condition).test(context), actual: context.slice(0, 160) };
  }
  if (type === 'jsonpath') {
    const context = evaluate(String(c.context), scope);
    // Evaluated on the context wrapped in a one-element array, as Redocly Respect does, so that a
    // filter at the root (`$[?length(@.data) == @.pageSize]`) applies to the context itself.
    const found = query([context] as never, condition);
    return { holds: found.length > 0, actual: JSON.stringify(context)?.slice(0, 160) ?? 'undefined' };
  }
  const { holds, left } = simpleCondition(condition, scope);
  return { holds, actual: JSON.stringify(left) ?? 'undefined' };
}

function credentialsOf(step: JsonObject, scope: Scope): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const entry of Array.isArray(step['x-security']) ? step['x-security'] : []) {
    if (!isObject(entry) || !isObject(entry.values)) continue;
    const values = resolveValue(entry.values, scope) as Record<string, string>;
    if (values.username !== undefined)
      headers.Authorization = `Basic ${Buffer.from(`${values.username}:${values.password}`).toString('base64')}`;
    else if (values.token !== undefined) headers.Authorization = `Bearer ${values.token}`;
    else if (values.apiKey !== undefined) headers['X-API-Key'] = values.apiKey;
  }
  return headers;
}

function requestOf(step: JsonObject, scope: Scope): StepRequest {
  const request: StepRequest = {
    operation: String(step.operationId),
    params: {},
    query: {},
    headers: credentialsOf(step, scope),
  };
  for (const p of Array.isArray(step.parameters) ? step.parameters : []) {
    if (!isObject(p)) continue;
    const value = String(resolveValue(p.value, scope) ?? '');
    if (p.in === 'path') request.params[String(p.name)] = value;
    else if (p.in === 'query') request.query[String(p.name)] = value;
    else if (p.in === 'header') request.headers[String(p.name)] = value;
  }
  const body = isObject(step.requestBody) ? step.requestBody : undefined;
  if (body) {
    request.contentType = String(body.contentType ?? 'application/json');
    const payload = resolveValue(body.payload, scope);
    request.body =
      request.contentType === 'application/x-www-form-urlencoded'
        ? new URLSearchParams(payload as Record<string, string>).toString()
        : payload;
  }
  return request;
}

/** The step to run after `index`: a matching `goto` of onSuccess, else the next one. */
function nextStep(steps: JsonObject[], index: number, step: JsonObject, scope: Scope, passed: boolean): number {
  const actions = passed && Array.isArray(step.onSuccess) ? step.onSuccess.filter(isObject) : [];
  for (const action of actions) {
    const criteria = Array.isArray(action.criteria) ? action.criteria.filter(isObject) : [];
    if (!criteria.every((c) => criterion(c, scope).holds)) continue;
    if (action.type === 'end') return steps.length;
    if (action.type === 'goto' && typeof action.stepId === 'string')
      return steps.findIndex((s) => s.stepId === action.stepId);
  }
  return index + 1;
}

/** Runs one workflow with `inputs`; `send` makes each step's request. Every criterion's verdict, in order. */
export async function runWorkflow(
  workflow: JsonObject,
  inputs: JsonObject,
  send: (request: StepRequest, title: string) => Promise<StepResponse>,
): Promise<CriterionVerdict[]> {
  const steps = (Array.isArray(workflow.steps) ? workflow.steps : []).filter(isObject);
  const scope: Scope = { inputs, steps: {} };
  const verdicts: CriterionVerdict[] = [];
  for (let index = 0, runs = 0; index >= 0 && index < steps.length && runs < MAX_STEPS; runs++) {
    const step = steps[index]!;
    const request = requestOf(step, { ...scope, response: undefined });
    scope.response = await send(request, `${String(workflow.workflowId)}/${String(step.stepId)}`);
    let passed = true;
    for (const c of (Array.isArray(step.successCriteria) ? step.successCriteria : []).filter(isObject)) {
      const { holds, actual } = criterion(c, scope);
      passed &&= holds;
      verdicts.push({
        stepId: String(step.stepId),
        operation: request.operation,
        condition: String(c.condition),
        passed: holds,
        actual,
        curl: scope.response.curl,
      });
    }
    const outputs: JsonObject = {};
    for (const [name, expression] of Object.entries(isObject(step.outputs) ? step.outputs : {}))
      outputs[name] = evaluate(String(expression), scope);
    scope.steps[String(step.stepId)] = { outputs };
    index = nextStep(steps, index, step, scope, passed);
  }
  return verdicts;
}
