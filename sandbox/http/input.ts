// A request's input, checked against its operation: the parameters' text (before anything is looked
// up), then the media type, the body and the parameters' schemas. Shared by the contract's
// operations (pipeline.ts) and the admin API's (admin.ts).
import { type FieldErrors, mergeFieldErrors, noFieldErrors, type OperationContract } from '../contract/api-document.js';
import { type ExchangeRequest, headerOf, type RequestHead } from './exchange.js';
import { bodyProblem, MAX_BODY_DEPTH, nestedDeeperThan, unstorable } from './limits.js';
import type { ProblemInput } from './problems.js';

const mediaTypeOf = (header: string | undefined) => header?.split(';')[0]?.trim().toLowerCase();

/** A 400's problem naming each offending field. */
export const invalidInput = (errors: FieldErrors): ProblemInput => ({
  title: 'One or more validation errors occurred.',
  detail: 'See errors for the fields that failed validation.',
  errors,
});

/**
 * The path, query and header parameters that hold text the store cannot keep (a NUL character, a
 * lone surrogate), each named, or undefined. Query keys are the client's: one that cannot be kept is
 * named `(query)`.
 */
export function unstorableParameters(
  operation: Pick<OperationContract<string>, 'parameters'>,
  request: Pick<RequestHead, 'params' | 'query' | 'headers'>,
): FieldErrors | undefined {
  let errors: FieldErrors | undefined;
  const refuse = (field: string, message: string) => {
    errors ??= noFieldErrors();
    errors[field] = [message];
  };
  const params = request.params;
  for (const key of Object.keys(params)) {
    const value = params[key];
    const why = typeof value === 'string' ? unstorable(value) : undefined;
    if (why) refuse(key, why);
  }
  const query = request.query;
  for (const key of Object.keys(query)) {
    if (unstorable(key)) refuse('(query)', 'must not have a parameter name with a NUL character or a lone surrogate');
    for (const value of [query[key]].flat()) {
      const why = typeof value === 'string' ? unstorable(value) : undefined;
      if (why) refuse(unstorable(key) ? '(query)' : key, why);
    }
  }
  for (const parameter of operation.parameters) {
    if (parameter.in !== 'header') continue;
    const value = request.headers[parameter.name.toLowerCase()];
    const why = typeof value === 'string' ? unstorable(value) : undefined;
    if (why) refuse(parameter.name, why);
  }
  return errors;
}

/**
 * The request's input checked against its operation: the media type, the body (JSON parsed, or the
 * form as an object) and the path, query and header parameters; a problem reply (400, 415) naming
 * every offending field otherwise. Before the body is parsed, its nesting is bounded (a deep body
 * would overflow the stack of whatever recurses over it); after, text the store cannot keep and an
 * oversized `metadata` are refused. Shared by the contract's operations and the admin API's.
 */
export function readInput<Reply>(
  operation: OperationContract<string>,
  request: ExchangeRequest,
  problem: (status: number, input: ProblemInput) => Reply,
): { reply: Reply } | { body: unknown; parameters: ReturnType<OperationContract['validateParameters']>['values'] } {
  const unstorableErrors = unstorableParameters(operation, request);
  if (unstorableErrors) return { reply: problem(400, invalidInput(unstorableErrors)) };
  let body: unknown;
  // Bytes are a multipart body, which only the hosted page takes: an operation reads it as text.
  const raw =
    typeof request.body === 'string' || request.body === undefined
      ? request.body
      : new TextDecoder().decode(request.body);
  if (operation.requestMediaType) {
    const mediaType = mediaTypeOf(headerOf(request.headers, 'content-type'));
    if (raw !== undefined && raw !== '' && mediaType !== operation.requestMediaType) {
      return {
        reply: problem(415, {
          title: 'Unsupported media type.',
          detail: `Send the body as ${operation.requestMediaType}.`,
        }),
      };
    }
    if (raw === undefined || raw === '') {
      if (operation.requestBodyRequired)
        return {
          reply: problem(400, {
            title: 'One or more validation errors occurred.',
            detail: 'The request body is required.',
            errors: { '(body)': ['is required'] },
          }),
        };
    } else if (operation.requestMediaType === 'application/json') {
      if (nestedDeeperThan(raw, MAX_BODY_DEPTH))
        return {
          reply: problem(
            400,
            invalidInput({ '(body)': [`must not nest objects and arrays more than ${MAX_BODY_DEPTH} levels deep`] }),
          ),
        };
      try {
        body = JSON.parse(raw);
      } catch (err) {
        return {
          reply: problem(400, {
            title: 'Malformed JSON.',
            detail: (err as Error).message,
            errors: { '(body)': [`is not valid JSON: ${(err as Error).message}`] },
          }),
        };
      }
      const found = bodyProblem(body, raw);
      if (found) return { reply: problem(400, invalidInput({ [found.field]: [found.message] })) };
    } else {
      // A form, as an object without a prototype (its field names are the client's).
      const form = Object.create(null) as Record<string, string>;
      const errors = noFieldErrors();
      for (const [name, value] of new URLSearchParams(raw)) {
        form[name] = value;
        const why = unstorable(name) ? 'must not have a field name with a NUL character' : unstorable(value);
        if (why) errors[unstorable(name) ? '(body)' : name] = [why];
      }
      if (Object.keys(errors).length > 0) return { reply: problem(400, invalidInput(errors)) };
      body = form;
    }
  }
  const parameters = operation.validateParameters({
    path: request.params,
    query: request.query,
    headers: request.headers,
  });
  const bodyErrors = body !== undefined ? operation.validateBody(body) : undefined;
  if (parameters.errors || bodyErrors) {
    return { reply: problem(400, invalidInput(mergeFieldErrors(parameters.errors, bodyErrors))) };
  }
  return { body, parameters: parameters.values };
}
