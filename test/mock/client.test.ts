// Every operation of generated/operations.ts called through its resource method against the Prism
// mock of the current contract, with arguments taken from the contract's examples: the call must
// resolve, the response must have the operation's success status and a body valid against its
// schema, and the request must carry the right credentials for the client's auth mode (Prism
// answers 401 to a scheme the operation does not accept, so a wrong choice fails twice over).
// The list comes from operations.ts: a new operation is covered without touching this file.
import { describe, expect, it } from 'vitest';
import { type OperationInfo, operations } from '../../generated/operations.js';
import { createPaymentClient, PaymentApiError, type PaymentClientOptions } from '../../src/client/index.js';
import {
  operations as contractOperations,
  deref,
  escapeToken,
  locate as locateIn,
  operationById,
  type ParameterObject,
  parametersOf,
} from '../../tooling/openapi/walker.js';
import { methodOf } from '../support/fake-api.js';
import { type Json, type JsonObject, loadBundle } from '../support/openapi.js';
import { sharedPrism } from '../support/prism.js';
import { createSchemaValidator, formatErrors } from '../support/schema.js';

const doc = loadBundle();
const validator = createSchemaValidator(doc);
const allOperations = Object.values(operations) as OperationInfo[];
const TOKEN_PATH = operations.createAccessToken.path;

const prism = { baseUrl: await sharedPrism() };

// ---------------------------------------------------------------------------------------------
// Arguments from the contract's examples

const locate = (ptr: string) => locateIn(doc, ptr);

const operationPointer = (info: OperationInfo) => `#/paths/${escapeToken(info.path)}/${info.method}`;

function parameterExample(p: ParameterObject): Json | undefined {
  const schema = deref(doc, p.schema ?? {});
  const named = Object.values(p.examples ?? {}).map((e) => deref(doc, e).value);
  return (p.example ??
    named[0] ??
    (Array.isArray(schema.examples) ? schema.examples[0] : undefined) ??
    schema.example) as Json | undefined;
}

/** Positional arguments: path parameters in order, the first request example, the query examples. */
function exampleArgs(info: OperationInfo): unknown[] {
  const params = parametersOf(doc, operationById(doc, info.operationId));
  const byName = (where: string, name: string) => params.find((p) => p.in === where && p.name === name);
  const args: unknown[] = info.pathParams.map((name) => {
    const value = parameterExample(byName('path', name)!);
    if (value === undefined) throw new Error(`${info.operationId}: path parameter ${name} has no example`);
    return value;
  });
  if (info.requestBody) {
    const media = locate(`${operationPointer(info)}/requestBody/content/${escapeToken(info.requestBody.mediaType)}`)
      .node as JsonObject;
    const value =
      media.example ?? Object.values((media.examples ?? {}) as JsonObject).map((e) => deref(doc, e).value)[0];
    if (value === undefined) throw new Error(`${info.operationId}: the request body has no example`);
    args.push(structuredClone(value));
  }
  if (info.queryParams.length > 0) {
    const query: Record<string, Json> = {};
    for (const name of info.queryParams) {
      const value = parameterExample(byName('query', name)!);
      if (value !== undefined) query[name] = value;
    }
    args.push(query);
  }
  return args;
}

/** JSON pointer of the success response's JSON schema, or undefined for an empty response (204). */
function successSchemaAt(info: OperationInfo): string | undefined {
  const { node, pointer: at } = locate(`${operationPointer(info)}/responses/${info.successStatus}`);
  const content = ((node as JsonObject).content ?? {}) as JsonObject;
  return 'application/json' in content ? locate(`${at}/content/application~1json/schema`).pointer : undefined;
}

// ---------------------------------------------------------------------------------------------
// Calling through the client, recording what went over the wire

interface Exchange {
  method: string;
  path: string;
  headers: Headers;
  status: number;
  violations: string | null;
}

function recordingClient(credentials: Pick<PaymentClientOptions, 'merchantId' | 'apiKey' | 'auth'>) {
  const exchanges: Exchange[] = [];
  const recordingFetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const response = await globalThis.fetch(request);
    exchanges.push({
      method: request.method,
      path: new URL(request.url).pathname,
      headers: request.headers,
      status: response.status,
      violations: response.headers.get('sl-violations'),
    });
    return response;
  }) as typeof fetch;
  const client = createPaymentClient({
    ...credentials,
    baseUrl: prism.baseUrl,
    fetch: recordingFetch,
  } as PaymentClientOptions);
  return { client, exchanges };
}

const accepts = (info: OperationInfo, scheme: string) => info.security.some((r) => r.length === 1 && r[0] === scheme);

/** What the operation's request must carry, by the rules of the client's auth modes. */
function expectedCredentials(
  info: OperationInfo,
  mode: 'basic' | 'oauth' | 'apiKey',
): 'Basic' | 'Bearer' | 'X-API-Key' {
  if (mode === 'apiKey') return 'X-API-Key';
  if (info.path === TOKEN_PATH) return 'Basic';
  if (mode === 'oauth') return accepts(info, 'bearerAuth') ? 'Bearer' : 'Basic';
  return accepts(info, 'basicAuth') ? 'Basic' : 'Bearer';
}

function credentialsSent(headers: Headers): string | undefined {
  if (headers.has('x-api-key')) return headers.has('authorization') ? 'X-API-Key + Authorization' : 'X-API-Key';
  return headers.get('authorization')?.split(' ')[0];
}

const MODES = {
  basic: { merchantId: 'acme_shop_de', apiKey: 'test-api-key' },
  oauth: { merchantId: 'acme_shop_de', apiKey: 'test-api-key', auth: 'oauth' },
  apiKey: { apiKey: 'test-api-key' },
} as const;

describe('every operation of operations.ts', () => {
  it('are all the operations of the contract', () => {
    const inContract = contractOperations(doc, ['paths']).map((o) => String(o.operation.operationId));
    expect(allOperations.map((o) => o.operationId).sort()).toEqual(inContract.sort());
  });
});

describe.each(allOperations.map((info) => [info.sdkMethod, info] as const))('%s', (_name, info) => {
  const modes = (['basic', 'oauth', 'apiKey'] as const).filter(
    (mode) => mode !== 'apiKey' || accepts(info, 'apiKeyAuth'),
  );
  it.each(modes)('with %s credentials: resolves with a valid body, sent with the right credentials', async (mode) => {
    const { client, exchanges } = recordingClient(MODES[mode]);
    const args = exampleArgs(info);
    let data: unknown;
    try {
      data = await methodOf(client, info.sdkMethod)(...args);
    } catch (error) {
      const last = exchanges.at(-1);
      const detail =
        error instanceof PaymentApiError ? ` body=${JSON.stringify(error.body)} sl-violations=${last?.violations}` : '';
      throw new Error(
        `${info.sdkMethod}(${JSON.stringify(args).slice(0, 300)}) failed: ${(error as Error).message}${detail}`,
        { cause: error },
      );
    }
    const exchange = exchanges.at(-1)!; // the operation's own request comes after any token request
    expect(exchange.method).toBe(info.method.toUpperCase());
    expect(exchange.status).toBe(info.successStatus);
    expect(credentialsSent(exchange.headers)).toBe(expectedCredentials(info, mode));
    if (info.idempotencyKey) expect(exchange.headers.get('idempotency-key')).toMatch(/^[0-9a-f-]{36}$/);
    // A bearer token came from the contract's token endpoint, once.
    const tokenRequests = exchanges.filter((e) => e.path === TOKEN_PATH && e !== exchange);
    expect(tokenRequests.length).toBe(expectedCredentials(info, mode) === 'Bearer' ? 1 : 0);

    const schemaAt = successSchemaAt(info);
    if (schemaAt === undefined) {
      expect(data).toBeUndefined();
    } else {
      const errors = validator.validate(schemaAt, data);
      expect(errors, `${info.operationId} response: ${formatErrors(errors)}`).toEqual([]);
    }
  });
});
