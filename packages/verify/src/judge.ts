// The checks every response gets, whichever check sent its request: not a server error, a declared
// status, the declared content type, the required headers, a body inside its schema.
import type { Contract } from './contract.js';
import type { Results } from './results.js';
import type { SchemaValidator } from './validator.js';

/** A response as the client received it, with the request that provoked it. */
export interface Exchange {
  operationId: string;
  title: string;
  method: string;
  url: string;
  status: number;
  /** Lower-cased names. */
  headers: Record<string, string>;
  text: string;
  /** The body parsed as JSON, or undefined: a foreign server's answer, read with optional chaining only. */
  // biome-ignore lint/suspicious/noExplicitAny: any shape may come; every read of it is guarded (?.) and judged
  json: any;
  curl: string;
}

const excerpt = (text: string) => (text.length > 200 ? `${text.slice(0, 200)}…` : text) || '(empty)';

export async function judgeResponse(
  contract: Contract,
  validator: SchemaValidator,
  results: Results,
  exchange: Exchange,
): Promise<void> {
  const op = contract.operations.get(exchange.operationId);
  if (!op) return;
  const base = { operationId: op.id, title: exchange.title, curl: exchange.curl };
  results.judge(
    'not-a-server-error',
    { ...base, expected: 'a status below 500' },
    exchange.status >= 500 ? [`${exchange.status}: ${excerpt(exchange.text)}`] : [],
  );
  const declared = op.responses.get(exchange.status);
  const statuses = [...op.responses.keys()].join(', ');
  if (
    !results.judge(
      'status-declared',
      { ...base, expected: `one of ${statuses}`, actual: String(exchange.status) },
      declared ? [] : [`${exchange.status}, which ${op.id} does not declare: ${excerpt(exchange.text)}`],
    ) ||
    !declared
  )
    return;
  const required = declared.headers.filter((h) => h.required).map((h) => h.name);
  results.judge(
    'required-headers',
    { ...base, expected: required.length ? `headers ${required.join(', ')}` : 'no required header' },
    required.filter((h) => exchange.headers[h] === undefined).map((h) => `${exchange.status} without ${h}`),
  );
  if (!declared.mediaType) {
    results.judge(
      'content-type',
      { ...base, expected: `${exchange.status} without a body` },
      exchange.text === '' ? [] : [`a body: ${excerpt(exchange.text)}`],
    );
    return;
  }
  const contentType = exchange.headers['content-type'] ?? '';
  const mediaType = contentType.split(';')[0]!.trim().toLowerCase();
  const typeOk = results.judge(
    'content-type',
    { ...base, expected: `${exchange.status} as ${declared.mediaType}`, actual: contentType },
    mediaType === declared.mediaType ? [] : [`content-type ${contentType || '(none)'}`],
  );
  if (!declared.schemaPointer) return;
  if (exchange.json === undefined && !typeOk) return; // the content type failed already: nothing to read
  const problems =
    exchange.json === undefined
      ? [`the body is not ${declared.mediaType}: ${excerpt(exchange.text)}`]
      : await validator.problems(declared.schemaPointer, exchange.json);
  results.judge(
    'response-schema',
    { ...base, expected: `the ${exchange.status} body inside its schema`, actual: 'inside it' },
    problems.map((p) => `${exchange.status} body ${p}`),
  );
}
