// The contract's examples as the sandbox reads them from the bundle: a path parameter's example, an
// operation's request and response examples. The seeding (app/seed.ts) gives a merchant the objects
// they name, under their own ids; nothing in the sandbox keeps a copy of those ids.
import type { OperationId } from '../../generated/operations.js';
import {
  deref,
  isObject,
  type JsonObject,
  type OpenAPI3,
  operationById,
  type ParameterObject,
  parametersOf,
} from '../../tooling/openapi/walker.js';

export interface ContractExamples {
  /** The example of an operation's path parameter: its own (`example`, else the first of `examples`), else its schema's. */
  pathParameter(operationId: OperationId, name: string): string;
  /** The value of an operation's request example: the one named `name`, else the first. */
  request<T>(operationId: OperationId, name?: string): T;
  /** The values of every request example of an operation, in the contract's order. */
  requests<T>(operationId: OperationId): T[];
  /** The value of a response example of `status`: the one named `name`, else the first. */
  response<T>(operationId: OperationId, status: number, name?: string): T;
  /** The values of every response example of `status`, in the contract's order. */
  responses<T>(operationId: OperationId, status: number): T[];
}

/** Throws naming what the contract lacks: the sandbox's seeding cannot do without it. */
function missing(what: string): never {
  throw new Error(`the contract has no ${what} (the sandbox's examples are read from it)`);
}

export function contractExamples(document: OpenAPI3 & JsonObject): ContractExamples {
  const operation = (id: OperationId) => operationById(document, id);

  /** The named Example Objects (and an unnamed `example`) of a media type, resolved: [name, value]. */
  const examplesOf = (media: unknown): Array<[string, unknown]> => {
    if (!isObject(media)) return [];
    const named = Object.entries(isObject(media.examples) ? media.examples : {}).map(
      ([name, ex]): [string, unknown] => [name, deref<JsonObject>(document, ex).value],
    );
    return [...named, ...(media.example !== undefined ? [['example', media.example] as [string, unknown]] : [])].filter(
      ([, value]) => value !== undefined,
    );
  };
  const firstMedia = (content: unknown) =>
    isObject(content) ? (Object.values(content).find((m) => isObject(m)) as JsonObject | undefined) : undefined;

  const requestExamples = (id: OperationId) => {
    const body = operation(id).operation.requestBody;
    return body === undefined ? [] : examplesOf(firstMedia(deref<JsonObject>(document, body).content));
  };
  const responseExamples = (id: OperationId, status: number) => {
    const response = operation(id).operation.responses?.[String(status)];
    return response === undefined ? [] : examplesOf(firstMedia(deref<JsonObject>(document, response).content));
  };
  const pick = <T>(examples: Array<[string, unknown]>, name: string | undefined, what: string): T => {
    const found = name === undefined ? examples[0] : examples.find(([n]) => n === name);
    return (found ?? missing(what))[1] as T;
  };

  return {
    pathParameter(id, name) {
      const entry = operation(id);
      const p = parametersOf(document, entry).find((x) => x.in === 'path' && x.name === name);
      if (!p) missing(`path parameter ${name} of ${id}`);
      const value = parameterExample(document, p);
      if (typeof value !== 'string' && typeof value !== 'number')
        missing(`example of the path parameter ${name} of ${id}`);
      return String(value);
    },
    request: <T>(id: OperationId, name?: string) =>
      pick<T>(requestExamples(id), name, `request example${name ? ` ${name}` : ''} of ${id}`),
    requests: <T>(id: OperationId) => requestExamples(id).map(([, value]) => value as T),
    response: <T>(id: OperationId, status: number, name?: string) =>
      pick<T>(responseExamples(id, status), name, `${status} response example${name ? ` ${name}` : ''} of ${id}`),
    responses: <T>(id: OperationId, status: number) => responseExamples(id, status).map(([, value]) => value as T),
  };
}

/** A parameter's example value: its own `example` or first of `examples`, else its schema's first. */
function parameterExample(document: JsonObject, p: ParameterObject): unknown {
  const own = p as unknown as JsonObject;
  if (own.example !== undefined) return own.example;
  const named = isObject(own.examples) ? Object.values(own.examples)[0] : undefined;
  if (named !== undefined) return deref<JsonObject>(document, named).value;
  const schema = own.schema === undefined ? undefined : deref<JsonObject>(document, own.schema);
  return Array.isArray(schema?.examples) ? schema.examples[0] : schema?.example;
}
