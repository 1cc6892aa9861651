// workflows: the Arazzo workflows the contract ships (`arazzo/`), each run with fresh inputs (its
// own transId, idempotency key and customer), with this package's runner (arazzo.ts). Redocly
// Respect is not used: it comes inside the whole Redocly CLI, stops a workflow at its first failed
// step, counts a 500 as declared and shows no actual value. Steps on the contract's operations go
// through the verifier's client, so every response is judged by the response checks as well; the
// hosted-page workflow plays the customer on the sandbox's page and runs only with --hosted.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { isObject, type JsonObject, operations } from '../../../../tooling/openapi/walker.js';
import { runWorkflow, type StepRequest, type StepResponse } from '../arazzo.js';
import { curlOf } from '../client.js';
import type { RunContext } from '../context.js';
import type { Fixtures } from '../fixtures.js';
import { arazzoDir } from '../paths.js';

interface Loaded {
  file: string;
  document: JsonObject;
  /** Other source descriptions by name (the hosted page's), parsed. */
  sources: Map<string, JsonObject>;
}

function load(): Loaded[] {
  const dir = arazzoDir();
  return readdirSync(dir)
    .filter((f) => f.endsWith('.arazzo.yaml'))
    .sort()
    .map((file) => {
      const document = parse(readFileSync(join(dir, file), 'utf8')) as JsonObject;
      const sources = new Map<string, JsonObject>();
      for (const s of Array.isArray(document.sourceDescriptions) ? document.sourceDescriptions.filter(isObject) : []) {
        const url = String(s.url);
        if (!url.startsWith('../'))
          sources.set(String(s.name), parse(readFileSync(join(dir, url), 'utf8')) as JsonObject);
      }
      return { file, document, sources };
    });
}

function inputsFor(ctx: RunContext, fx: Fixtures, workflow: JsonObject): JsonObject | string {
  const schema = isObject(workflow.inputs) ? workflow.inputs : {};
  const names = Object.keys(isObject(schema.properties) ? schema.properties : {});
  const receiver = ctx.receiver?.url ?? 'https://shop.example/webhooks';
  const values: Record<string, () => string> = {
    merchantId: () => ctx.first.merchantId,
    apiKey: () => ctx.first.apiKey,
    transId: () => ctx.ref('wf'),
    idempotencyKey: () => `${ctx.ref('wf-key')}-${Math.floor(ctx.random() * 1e9)}`,
    merchantCustomerId: () => {
      const id = ctx.ref('wf-cus');
      fx.remember(ctx.first, id);
      return id;
    },
    returnUrl: () => `${receiver}/return`,
    cancelUrl: () => `${receiver}/cancel`,
    webhookUrl: () => receiver,
  };
  const unknown = names.filter((n) => !values[n]);
  if (unknown.length > 0) return `inputs this verifier cannot fill: ${unknown.join(', ')}`;
  return Object.fromEntries(names.map((n) => [n, values[n]!()]));
}

async function sendToPage(
  ctx: RunContext,
  page: JsonObject,
  request: StepRequest,
  operationId: string,
): Promise<StepResponse> {
  const entry = operations(page, ['paths']).find((e) => e.operation.operationId === operationId);
  if (!entry) throw new Error(`the hosted page's description has no ${operationId}`);
  const path = entry.key.replace(/\{([^}]+)\}/g, (_m, n: string) => encodeURIComponent(request.params[n] ?? ''));
  const url = `${new URL(ctx.client.options.baseUrl).origin}${path}`;
  const body =
    typeof request.body === 'string'
      ? request.body
      : request.body === undefined
        ? undefined
        : JSON.stringify(request.body);
  const headers = { ...request.headers, ...(request.contentType ? { 'Content-Type': request.contentType } : {}) };
  const response = await fetch(url, { method: entry.method.toUpperCase(), headers, body, redirect: 'follow' });
  const text = await response.text();
  const responseHeaders: Record<string, string> = {};
  response.headers.forEach((v, k) => {
    responseHeaders[k] = v;
  });
  return {
    status: response.status,
    headers: responseHeaders,
    text,
    json: undefined,
    curl: curlOf(entry.method.toUpperCase(), url, headers, body),
  };
}

export async function runWorkflows(ctx: RunContext, fx: Fixtures): Promise<void> {
  if (ctx.readOnly) return ctx.results.skipCheck('workflows', 'a live server: nothing may be created');
  for (const { file, document, sources } of load()) {
    for (const workflow of (Array.isArray(document.workflows) ? document.workflows : []).filter(isObject)) {
      const id = String(workflow.workflowId);
      if (sources.size > 0 && !ctx.hosted) {
        ctx.results.skip(
          'workflows',
          id,
          `${file}: ${id}`,
          'it plays the customer on the hosted page: only with --hosted',
        );
        continue;
      }
      const inputs = inputsFor(ctx, fx, workflow);
      if (typeof inputs === 'string') {
        ctx.results.skip('workflows', id, `${file}: ${id}`, inputs);
        continue;
      }
      ctx.progress(`  workflow ${id}`);
      const verdicts = await runWorkflow(workflow, inputs, async (request, title) => {
        const [source, operationId] = request.operation.includes('.')
          ? request.operation.split('.')
          : [undefined, request.operation];
        const page = source ? sources.get(source) : undefined;
        if (page) return sendToPage(ctx, page, request, operationId!);
        const exchange = await ctx.client.send({
          operationId: operationId!,
          title,
          auth: { scheme: 'raw', headers: request.headers },
          params: request.params,
          query: request.query,
          ...(request.body !== undefined ? { body: request.body, contentType: request.contentType } : {}),
        });
        return exchange;
      });
      for (const v of verdicts) {
        ctx.results.judge(
          'workflows',
          {
            operationId: v.operation.split('.').pop()!,
            title: `${id}/${v.stepId}: ${v.condition}`,
            expected: v.condition,
            actual: v.actual,
            curl: v.curl,
          },
          v.passed ? [] : [`${v.condition} does not hold: the left side is ${v.actual}`],
        );
      }
    }
  }
}
