// The smallest contract the breaking-change gate can compare: one operation whose request body is
// one of `values`. Removing a value narrows a request (breaking); adding one does not.

/** The contract's YAML text. */
export const tinyContract = (values: string[]): string =>
  [
    'openapi: 3.1.1',
    'info: { title: Tiny, version: 1.0.0 }',
    'paths:',
    '  /things:',
    '    post:',
    '      operationId: createThing',
    '      requestBody:',
    '        content:',
    '          application/json:',
    '            schema:',
    `              enum: [${values.join(', ')}]`,
    '      responses:',
    "        '204': { description: Created. }",
    '',
  ].join('\n');
