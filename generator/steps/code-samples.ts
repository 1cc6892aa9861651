// Code samples from the contract's examples: for every operation and every request example (an
// operation without a body: one sample from its parameter examples), a curl command and a
// TypeScript program with the SDK, each labelled with the status it returns. Written to
// generated/samples/ and shown in the docs as `x-codeSamples` (generator/steps/docs.ts adds them to the
// docs' copy only: the samples are derived, the contract stays the source of truth).
// test/generator/code-samples.test.ts type-checks every TypeScript sample and runs every sample against the
// sandbox.
import { createHash } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { OperationInfo } from '../../src/client/operation-info.js';
import {
  deref,
  isObject,
  type JsonObject,
  operationById,
  type ParameterObject,
  parametersOf,
  propertiesOf,
} from '../../tooling/openapi/walker.js';
import type { OpenApiDocument } from './bundle.js';
import { extractOperations, extractSecuritySchemes } from './operations.js';

/** The package the samples import, as users install it (package.json `name`). */
export const PACKAGE_NAME = '@payment-service/api-v2';
/** The environment variables the samples read. */
export const SAMPLE_ENV = {
  baseUrl: 'PAYMENT_API_BASE_URL',
  merchantId: 'MERCHANT_ID',
  apiKey: 'API_KEY',
  accessToken: 'ACCESS_TOKEN',
} as const;
/** The sample name of an operation without a request body (its parameters' examples). */
export const PARAMETERS_EXAMPLE = 'default';
export const SAMPLES_DIR = 'samples';

export type Auth = 'basic' | 'bearer' | 'apiKey';

/** One request example of one operation: what both of its samples send, and what they get. */
export interface SampleCase {
  operationId: string;
  /** The request example's name, or PARAMETERS_EXAMPLE. */
  example: string;
  /** The example's summary, else the operation's. */
  summary: string;
  info: OperationInfo;
  /** The status the sample returns (see expectedStatus). */
  status: number;
  pathParams: [string, string][];
  query: [string, unknown][];
  /** Header parameters other than Idempotency-Key (required ones with an example). */
  headers: [string, string][];
  body: unknown;
  /** A deterministic, plausible key (UUID-shaped), when the operation accepts one. */
  idempotencyKey: string | undefined;
  /** The credentials the SDK sends for this operation with a merchant id and an API key. */
  auth: Auth;
  /** More than one sample for this operation: the labels name the example. */
  named: boolean;
}

export interface CodeSample {
  operationId: string;
  example: string;
  lang: 'curl' | 'TypeScript';
  /** `curl → 201 Created`, `TypeScript (SDK) → 201 Created` (with the example's name when the operation has several) */
  label: string;
  status: number;
  /** Under the output directory: `samples/<operationId>.<example>.sh|.ts` */
  file: string;
  /** The sample as the docs show it (the file adds a header comment). */
  source: string;
  /** The file's content. */
  content: string;
}

const statusText = (status: number) => `${status} ${STATUS_CODES[status] ?? ''}`.trim();

/** The value of a parameter's example: its own `example`/`examples`, else its schema's. */
function parameterExample(document: OpenApiDocument, p: ParameterObject): unknown {
  const own = p as unknown as JsonObject;
  if (own.example !== undefined) return own.example;
  const named = isObject(own.examples) ? Object.values(own.examples)[0] : undefined;
  if (named !== undefined) return deref<JsonObject>(document, named).value;
  const schema = own.schema === undefined ? undefined : deref<JsonObject>(document, own.schema);
  if (Array.isArray(schema?.examples)) return schema.examples[0];
  return schema?.example;
}

/** The request examples of an operation's body, by name (an unnamed `example` is called `example`). */
function requestExamples(document: OpenApiDocument, op: JsonObject, mediaType: string): [string, JsonObject][] {
  const body = deref<JsonObject>(document, op.requestBody);
  const media = isObject(body.content) ? (body.content as Record<string, JsonObject>)[mediaType] : undefined;
  if (!media) return [];
  const out: [string, JsonObject][] = Object.entries(isObject(media.examples) ? media.examples : {}).map(
    ([name, ex]) => [name, deref<JsonObject>(document, ex)],
  );
  if (media.example !== undefined) out.push(['example', { value: media.example }]);
  return out.filter(([, ex]) => ex.value !== undefined);
}

/** Every response example of an operation: [status, name, value]. */
function responseExamples(document: OpenApiDocument, op: JsonObject): [number, string, unknown][] {
  const out: [number, string, unknown][] = [];
  for (const [status, raw] of Object.entries(isObject(op.responses) ? op.responses : {})) {
    if (!/^\d{3}$/.test(status)) continue;
    const response = deref<JsonObject>(document, raw);
    for (const media of Object.values(isObject(response.content) ? response.content : {})) {
      if (!isObject(media)) continue;
      for (const [name, ex] of Object.entries(isObject(media.examples) ? media.examples : {}))
        out.push([Number(status), name, deref<JsonObject>(document, ex).value]);
    }
  }
  return out.sort((a, b) => a[0] - b[0]);
}

/**
 * The response code a `simulationMode` in the request forces, from the contract's
 * `x-simulation-codes` on the body's simulationMode property (undefined when the body sets none).
 */
function simulatedResponseCode(
  document: OpenApiDocument,
  op: JsonObject,
  mediaType: string,
  value: unknown,
): string | undefined {
  if (!isObject(value) || typeof value.simulationMode !== 'string') return undefined;
  const body = deref<JsonObject>(document, op.requestBody);
  const schema = isObject(body.content) ? (body.content as Record<string, JsonObject>)[mediaType]?.schema : undefined;
  const property = propertiesOf(document, schema).get('simulationMode');
  if (property === undefined) return undefined;
  const codes = deref<JsonObject>(document, property)['x-simulation-codes'];
  const list = isObject(codes) && Array.isArray(codes.codes) ? (codes.codes as JsonObject[]) : [];
  const code = list.find((c) => c.simulationMode === value.simulationMode)?.responseCode;
  return typeof code === 'string' ? code : undefined;
}

/**
 * The status a request example gets: that of the response example of the same name, if there is
 * one; else, when the example forces a response code (`simulationMode`), the status of the first
 * response example carrying that code (a decline: 422); else the operation's first 2xx.
 */
function expectedStatus(
  document: OpenApiDocument,
  op: JsonObject,
  info: OperationInfo,
  name: string,
  value: unknown,
): number {
  const responses = responseExamples(document, op);
  const same = responses.find(([, n]) => n === name);
  if (same) return same[0];
  const code = info.requestBody ? simulatedResponseCode(document, op, info.requestBody.mediaType, value) : undefined;
  if (code !== undefined) {
    const carrying = responses.find(([, , v]) => isObject(v) && v.responseCode === code);
    if (carrying) return carrying[0];
  }
  return info.successStatus;
}

/** The credentials the SDK sends with `{ merchantId, apiKey }` (its Basic mode: Basic, else bearer, else the API key). */
function authOf(document: OpenApiDocument, info: OperationInfo): Auth {
  const schemes = extractSecuritySchemes(document);
  const kind = (name: string): Auth | undefined => {
    const s = schemes[name];
    if (s?.type === 'http' && s.scheme === 'basic') return 'basic';
    if (s?.type === 'http' && s.scheme === 'bearer') return 'bearer';
    if (s?.type === 'apiKey' && s.in === 'header') return 'apiKey';
    return undefined;
  };
  const alternatives = info.security.filter((r) => r.length === 1).map((r) => kind(r[0]!));
  const found = (['basic', 'bearer', 'apiKey'] as const).find((a) => alternatives.includes(a));
  if (!found)
    throw new Error(
      `samples: ${info.operationId} accepts no credentials a sample can send (${JSON.stringify(info.security)})`,
    );
  return found;
}

/** A UUID-shaped key, the same for the same operation and example on every run. */
function idempotencyKeyFor(operationId: string, example: string): string {
  const h = createHash('sha256').update(`${operationId}/${example}`).digest('hex');
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** Every operation's sample cases, in the contract's order. */
export function sampleCases(document: OpenApiDocument): SampleCase[] {
  const cases: SampleCase[] = [];
  for (const info of extractOperations(document)) {
    const entry = operationById(document, info.operationId);
    const op = entry.operation as JsonObject;
    const params = parametersOf(document, entry);
    const exampleValueOf = (p: ParameterObject) => {
      const value = parameterExample(document, p);
      if (value === undefined && p.required)
        throw new Error(`samples: ${info.operationId}: the required ${p.in} parameter ${p.name} has no example`);
      return value;
    };
    const pathParams = info.pathParams.map((name): [string, string] => [
      name,
      String(exampleValueOf(params.find((p) => p.in === 'path' && p.name === name)!)),
    ]);
    const query = params
      .filter((p) => p.in === 'query')
      .map((p): [string, unknown] => [p.name, exampleValueOf(p)])
      .filter(([, v]) => v !== undefined);
    const headers = params
      .filter((p) => p.in === 'header' && p.required && p.name.toLowerCase() !== 'idempotency-key')
      .map((p): [string, string] => [p.name, String(exampleValueOf(p))]);
    const examples: [string, JsonObject | undefined][] = info.requestBody
      ? requestExamples(document, op, info.requestBody.mediaType)
      : [[PARAMETERS_EXAMPLE, undefined]];
    if (examples.length === 0) {
      if (info.requestBody?.required)
        throw new Error(`samples: ${info.operationId} has a required request body without an example`);
      examples.push([PARAMETERS_EXAMPLE, undefined]);
    }
    for (const [name, example] of examples) {
      const summary = typeof example?.summary === 'string' ? example.summary : info.summary;
      cases.push({
        operationId: info.operationId,
        example: name,
        summary,
        info,
        status: expectedStatus(document, op, info, name, example?.value),
        pathParams,
        query,
        headers,
        body: example?.value,
        idempotencyKey: info.idempotencyKey ? idempotencyKeyFor(info.operationId, name) : undefined,
        auth: authOf(document, info),
        named: examples.length > 1,
      });
    }
  }
  return cases;
}

// ---------------------------------------------------------------------------------------------
// curl

/** A word for bash in single quotes. */
const shellQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

function curlSource(c: SampleCase): string {
  const { info } = c;
  let path = info.path;
  for (const [name, value] of c.pathParams) path = path.replace(`{${name}}`, encodeURIComponent(value));
  const search = new URLSearchParams(c.query.map(([k, v]) => [k, String(v)])).toString();
  // Double quotes, for the variable; the path and query are percent-encoded, so nothing else expands.
  const url = `"$${SAMPLE_ENV.baseUrl}${path}${search ? `?${search}` : ''}"`;
  const lines = [
    `curl -sS -i${info.method === 'get' || (info.method === 'post' && c.body !== undefined) ? '' : ` -X ${info.method.toUpperCase()}`} ${url}`,
  ];
  if (c.auth === 'basic') lines.push(`-u "$${SAMPLE_ENV.merchantId}:$${SAMPLE_ENV.apiKey}"`);
  else if (c.auth === 'bearer') lines.push(`-H "Authorization: Bearer $${SAMPLE_ENV.accessToken}"`);
  else lines.push(`-H "X-API-Key: $${SAMPLE_ENV.apiKey}"`);
  for (const [name, value] of c.headers) lines.push(`-H ${shellQuote(`${name}: ${value}`)}`);
  if (c.idempotencyKey) lines.push(`-H ${shellQuote(`Idempotency-Key: ${c.idempotencyKey}`)}`);
  if (c.body !== undefined && info.requestBody) {
    lines.push(`-H ${shellQuote(`Content-Type: ${info.requestBody.mediaType}`)}`);
    if (info.requestBody.mediaType === 'application/x-www-form-urlencoded') {
      for (const [k, v] of Object.entries(c.body as JsonObject))
        lines.push(`--data-urlencode ${shellQuote(`${k}=${String(v)}`)}`);
    } else {
      lines.push(`--data ${shellQuote(JSON.stringify(c.body, null, 2))}`);
    }
  }
  return lines.join(' \\\n  ');
}

// ---------------------------------------------------------------------------------------------
// TypeScript with the SDK

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A value as a TypeScript literal, indented as code: unquoted keys where possible, single quotes. */
function tsLiteral(value: unknown, indent: string): string {
  const next = `${indent}  `;
  if (typeof value === 'string') return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;
  if (Array.isArray(value)) {
    const items = value.map((v) => tsLiteral(v, next));
    const flat = `[${items.join(', ')}]`;
    return flat.length <= 80 && !flat.includes('\n')
      ? flat
      : `[\n${items.map((i) => `${next}${i},`).join('\n')}\n${indent}]`;
  }
  if (isObject(value)) {
    const entries = Object.entries(value).map(
      ([k, v]) => `${IDENTIFIER.test(k) ? k : tsLiteral(k, next)}: ${tsLiteral(v, next)}`,
    );
    if (entries.length === 0) return '{}';
    return `{\n${entries.map((e) => `${next}${e},`).join('\n')}\n${indent}}`;
  }
  return JSON.stringify(value);
}

/** Arguments on one line when short, the last one hugged when only it spans lines, else one per line. */
function callArguments(args: string[]): string {
  const flat = args.join(', ');
  if (!flat.includes('\n') && flat.length <= 60) return flat;
  if (args.slice(0, -1).every((a) => !a.includes('\n')) && args.at(-1)!.includes('\n')) {
    return args.map((a, i) => (i === args.length - 1 ? a.replace(/\n {4}/g, '\n  ') : a)).join(', ');
  }
  return `\n    ${args.join(',\n    ')},\n  `;
}

function typescriptSource(c: SampleCase): string {
  const { info } = c;
  const env = (name: string) => `process.env.${name}`;
  const credentials =
    c.auth === 'apiKey'
      ? [`  apiKey: ${env(SAMPLE_ENV.apiKey)}!,`]
      : [`  merchantId: ${env(SAMPLE_ENV.merchantId)}!,`, `  apiKey: ${env(SAMPLE_ENV.apiKey)}!,`];
  const args: string[] = c.pathParams.map(([, value]) => tsLiteral(value, '    '));
  if (info.requestBody) args.push(c.body === undefined ? 'undefined' : tsLiteral(c.body, '    '));
  if (c.query.length > 0) args.push(tsLiteral(Object.fromEntries(c.query), '    '));
  if (c.idempotencyKey) args.push(`{ idempotencyKey: '${c.idempotencyKey}' }`);
  const call = `client.${info.sdkMethod}(${callArguments(args)})`;
  const noBody = c.status === 204 || info.successStatus === 204;
  const lines = [
    `import { createPaymentClient, PaymentApiError } from '${PACKAGE_NAME}';`,
    '',
    `const client = createPaymentClient({`,
    `  baseUrl: ${env(SAMPLE_ENV.baseUrl)},`,
    ...credentials,
    `});`,
    '',
    ...(c.auth === 'bearer'
      ? [`// This operation accepts only a bearer token: the client obtains one with the API key.`]
      : []),
    `try {`,
    ...(noBody
      ? [`  await ${call};`, `  console.log('${statusText(info.successStatus)}');`]
      : [`  const result = await ${call};`, `  console.log(JSON.stringify(result, null, 2));`]),
    `} catch (error) {`,
    `  if (!(error instanceof PaymentApiError)) throw error; // network, timeout or credentials`,
    `  // 400: fieldErrors name the fields; 422: operationResult says why (responseCode)`,
    `  console.error(error.status, error.traceId, JSON.stringify(error.operationResult ?? error.problem ?? error.body, null, 2), error.fieldErrors);`,
    `  process.exitCode = 1;`,
    `}`,
  ];
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------
// Samples and files

export function codeSamples(document: OpenApiDocument): CodeSample[] {
  return sampleCases(document).flatMap((c): CodeSample[] => {
    const base = `${SAMPLES_DIR}/${c.operationId}.${c.example}`;
    const suffix = `${c.named ? ` (${c.example})` : ''} → ${statusText(c.status)}`;
    const about = `${c.info.method.toUpperCase()} ${c.info.path} (${c.operationId}), example "${c.example}": ${c.summary} → ${statusText(c.status)}`;
    const header = (comment: string) =>
      [
        `${comment} ${about}`,
        `${comment} Generated by \`npm run generate\` from the contract's examples. Do not edit.`,
      ].join('\n');
    const curl = curlSource(c);
    const ts = typescriptSource(c);
    const envs =
      c.auth === 'bearer'
        ? [SAMPLE_ENV.baseUrl, SAMPLE_ENV.accessToken]
        : c.auth === 'apiKey'
          ? [SAMPLE_ENV.baseUrl, SAMPLE_ENV.apiKey]
          : [SAMPLE_ENV.baseUrl, SAMPLE_ENV.merchantId, SAMPLE_ENV.apiKey];
    return [
      {
        operationId: c.operationId,
        example: c.example,
        lang: 'curl',
        label: `curl${suffix}`,
        status: c.status,
        file: `${base}.sh`,
        source: curl,
        content: `${header('#')}\n# Needs ${envs.join(', ')}.\n${curl}\n`,
      },
      {
        operationId: c.operationId,
        example: c.example,
        lang: 'TypeScript',
        label: `TypeScript (SDK)${suffix}`,
        status: c.status,
        file: `${base}.ts`,
        source: ts,
        content: `${header('//')}\n// Needs ${[SAMPLE_ENV.baseUrl, ...(c.auth === 'apiKey' ? [] : [SAMPLE_ENV.merchantId]), SAMPLE_ENV.apiKey].join(', ')}.\n${ts}\n`,
      },
    ];
  });
}

/** The tsconfig of generated/samples/: the package name mapped to the SDK's source, for editors, tsc and tsx. */
export const SAMPLES_TSCONFIG = `// The TypeScript samples import ${PACKAGE_NAME} as users do; here the name maps to the SDK's source.
// Generated by \`npm run generate\`. Do not edit.
{
  "compilerOptions": {
    "target": "ES2022",
    "lib": ["ES2023", "DOM", "DOM.Iterable"],
    "module": "ESNext",
    "moduleResolution": "Bundler",
    "strict": true,
    "noEmit": true,
    "skipLibCheck": true,
    "types": ["node"],
    "paths": {
      "${PACKAGE_NAME}": ["../../src/client/index.ts"],
      "${PACKAGE_NAME}/webhooks": ["../../src/webhooks/index.ts"],
      "${PACKAGE_NAME}/types": ["../types.ts"]
    }
  },
  "include": ["*.ts"]
}
`;

/** The files of generated/samples/ (paths relative to the output directory). */
export function renderCodeSamples(document: OpenApiDocument): { path: string; content: string }[] {
  return [
    ...codeSamples(document).map((s) => ({ path: s.file, content: s.content })),
    { path: `${SAMPLES_DIR}/tsconfig.json`, content: SAMPLES_TSCONFIG },
  ];
}

export interface XCodeSample {
  lang: string;
  label: string;
  source: string;
}

/** The samples of each operation as `x-codeSamples` entries, by operationId. */
export function xCodeSamples(document: OpenApiDocument): Map<string, XCodeSample[]> {
  const out = new Map<string, XCodeSample[]>();
  for (const s of codeSamples(document)) {
    const list = out.get(s.operationId) ?? out.set(s.operationId, []).get(s.operationId)!;
    list.push({ lang: s.lang, label: s.label, source: s.source });
  }
  // curl first, then TypeScript
  for (const list of out.values()) list.sort((a, b) => Number(a.lang !== 'curl') - Number(b.lang !== 'curl'));
  return out;
}
