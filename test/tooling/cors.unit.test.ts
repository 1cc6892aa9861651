// The CORS rule of the mock and the sandbox (tooling/openapi/cors.ts): origins parsed as origins,
// the option and the environment variable, the operations a browser may call read off the
// contract's security (the bundle's, and counter-examples), and the rule's answers.
import { describe, expect, it } from 'vitest';
import {
  browserOperations,
  CORS_ORIGINS_ENV,
  CorsConfigError,
  corsOriginsFrom,
  corsRule,
  mergeVary,
  parseOrigin,
} from '../../tooling/openapi/cors.js';
import type { JsonObject } from '../../tooling/openapi/walker.js';
import { loadBundle } from '../support/openapi.js';

describe('parseOrigin', () => {
  it('accepts scheme://host[:port] and returns it as browsers send Origin', () => {
    expect(parseOrigin('http://localhost:5173')).toBe('http://localhost:5173');
    expect(parseOrigin(' HTTPS://App.Example.COM ')).toBe('https://app.example.com');
    expect(parseOrigin('http://localhost:80')).toBe('http://localhost'); // the default port is not sent
    expect(parseOrigin('https://shop.example:443')).toBe('https://shop.example');
    expect(parseOrigin('https://shop.example:8443')).toBe('https://shop.example:8443');
    expect(parseOrigin('http://127.0.0.1:3000')).toBe('http://127.0.0.1:3000');
    expect(parseOrigin('http://[::1]:3000')).toBe('http://[::1]:3000');
    expect(parseOrigin('http://[0:0:0:0:0:0:0:1]:3000')).toBe('http://[::1]:3000');
  });

  it.each([
    ['', /an empty origin/],
    ['*', /wildcards are not accepted/],
    ['https://*.example.com', /wildcards are not accepted/],
    ['null', /no scheme/],
    ['localhost:5173', /no scheme \(http:\/\/ or https:\/\/\)/],
    ['//localhost:5173', /no scheme/],
    ['http://localhost:5173/', /no path \(drop \/\)/],
    ['http://localhost:5173/app/', /no path \(drop \/app\/\)/],
    ['http://localhost:5173?x=1', /no query or fragment \(drop \?x=1\)/],
    ['http://localhost:5173#top', /no query or fragment \(drop #top\)/],
    ['http://user:pw@localhost:5173', /no user or password/],
    ['ftp://files.example', /only http and https/],
    ['capacitor://localhost', /only http and https/],
    ['file:///tmp/page.html', /only http and https/],
    ['http://localhost:0', /port 0 is not between 1 and 65535/],
    ['http://localhost:65536', /port 65536 is not between 1 and 65535/],
    ['http://a.example,http://b.example', /one origin at a time/],
    ['http://under_score.example', /not scheme:\/\/host\[:port\]/],
    ['http://300.1.1.1', /not scheme:\/\/host\[:port\]/],
    ['http://[::g]:80', /not scheme:\/\/host\[:port\]/],
    ['http://', /not scheme:\/\/host\[:port\]/],
  ])('refuses %j', (value, message) => {
    expect(() => parseOrigin(value)).toThrow(CorsConfigError);
    expect(() => parseOrigin(value)).toThrow(message);
  });
});

describe('corsOriginsFrom: --cors-origin, else PAYMENT_API_CORS_ORIGINS, else none', () => {
  it('reads the options (repeatable), dropping duplicates', () => {
    expect(
      corsOriginsFrom(['http://localhost:5173', 'http://LOCALHOST:5173', 'https://app.example'], undefined),
    ).toEqual(['http://localhost:5173', 'https://app.example']);
  });

  it('reads the variable, comma-separated, blanks ignored, when no option is given', () => {
    expect(CORS_ORIGINS_ENV).toBe('PAYMENT_API_CORS_ORIGINS');
    expect(corsOriginsFrom(undefined, ' http://localhost:5173 , https://app.example,')).toEqual([
      'http://localhost:5173',
      'https://app.example',
    ]);
    expect(corsOriginsFrom([], 'http://localhost:5173')).toEqual(['http://localhost:5173']);
    // the options win over the variable
    expect(corsOriginsFrom(['https://app.example'], 'http://localhost:5173')).toEqual(['https://app.example']);
  });

  it('is closed without either', () => {
    expect(corsOriginsFrom(undefined, undefined)).toEqual([]);
    expect(corsOriginsFrom([], '')).toEqual([]);
    expect(corsOriginsFrom(undefined, ' , ')).toEqual([]);
  });

  it('names the option or the variable holding a bad value', () => {
    expect(() => corsOriginsFrom(['http://localhost:5173', '*'], undefined)).toThrow(/^--cors-origin: \*: wildcards/);
    expect(() => corsOriginsFrom(undefined, 'http://localhost:5173,localhost:3000')).toThrow(
      /^PAYMENT_API_CORS_ORIGINS: localhost:3000 is not an origin/,
    );
  });
});

describe('browserOperations: those whose security accepts the bearer token alone', () => {
  it('in the contract: confirmPaymentIntent, with the headers it takes and the ones it answers', () => {
    expect(browserOperations(loadBundle())).toEqual([
      {
        operationId: 'confirmPaymentIntent',
        method: 'POST',
        path: '/payment-intents/{id}/confirm',
        allowedHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key'],
        exposedHeaders: ['Idempotent-Replayed', 'WWW-Authenticate', 'Retry-After'],
      },
    ]);
  });

  it('reads security per operation, else the document’s, through $refs (counter-examples)', () => {
    const document: JsonObject = {
      openapi: '3.1.0',
      security: [{ bearer: [] }],
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'Bearer' },
          otherBearer: { $ref: '#/components/securitySchemes/bearer' },
          basic: { type: 'http', scheme: 'basic' },
          key: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
          oauth: { type: 'oauth2', flows: {} },
        },
        parameters: { trace: { name: 'X-Trace', in: 'header', schema: { type: 'string' } } },
        responses: { ok: { description: 'ok', headers: { 'X-Rate': { schema: { type: 'string' } } } } },
      },
      paths: {
        '/inherited/{id}': {
          parameters: [{ $ref: '#/components/parameters/trace' }],
          get: {
            operationId: 'inherited',
            parameters: [{ name: 'Accept', in: 'header', schema: { type: 'string' } }],
            responses: { '200': { $ref: '#/components/responses/ok' } },
          },
        },
        '/either': { get: { operationId: 'either', security: [{ bearer: [] }, { otherBearer: [] }], responses: {} } },
        '/both': { post: { operationId: 'bothAtOnce', security: [{ bearer: [], basic: [] }], responses: {} } },
        '/server': { post: { operationId: 'orBasic', security: [{ bearer: [] }, { basic: [] }], responses: {} } },
        '/key': { get: { operationId: 'orKey', security: [{ bearer: [] }, { key: [] }], responses: {} } },
        '/public': { get: { operationId: 'public', security: [], responses: {} } },
        '/anonymous': { get: { operationId: 'anonymous', security: [{}, { bearer: [] }], responses: {} } },
        '/oauth': { get: { operationId: 'oauth', security: [{ oauth: [] }], responses: {} } },
        '/unknown': { get: { operationId: 'unknownScheme', security: [{ nowhere: [] }], responses: {} } },
      },
    };
    const found = browserOperations(document);
    // bothAtOnce needs Basic credentials too (one alternative naming two schemes: both at once)
    expect(found.map((op) => op.operationId)).toEqual(['inherited', 'either']);
    expect(found[0]).toEqual({
      operationId: 'inherited',
      method: 'GET',
      path: '/inherited/{id}',
      allowedHeaders: ['Authorization', 'X-Trace'], // no body: no Content-Type; Accept is the transport's
      exposedHeaders: ['X-Rate'],
    });
  });
});

describe('corsRule', () => {
  const doc = loadBundle();
  const allowed = 'http://localhost:5173';
  const confirm = '/payment-intents/pi_1/confirm';
  const ask = (origin: string | undefined, method: string | undefined, headers?: string) => ({
    origin,
    method,
    headers,
  });

  it('closed without origins: answers no preflight and adds no header', () => {
    const rule = corsRule(doc, []);
    expect(rule.origins).toEqual([]);
    expect(rule.operations.map((op) => op.operationId)).toEqual(['confirmPaymentIntent']);
    expect(rule.preflight(confirm, ask(allowed, 'POST', 'authorization'))).toEqual({ verdict: 'none' });
    expect(rule.responseHeaders('confirmPaymentIntent', allowed)).toEqual({});
  });

  it('answers the preflight of an allowed origin for the exact path and method, with the headers the operation takes', () => {
    const rule = corsRule(doc, [allowed]);
    expect(rule.preflight(confirm, ask(allowed, 'post', 'Authorization, Content-Type,idempotency-key'))).toEqual({
      verdict: 'allow',
      status: 204,
      headers: {
        'access-control-allow-origin': allowed,
        'access-control-allow-methods': 'POST',
        'access-control-allow-headers': 'Authorization, Content-Type, Idempotency-Key',
        'access-control-max-age': '600',
        vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
      },
    });
  });

  it('refuses another origin, method or header on that path, with the reason and no Access-Control-Allow-*', () => {
    const rule = corsRule(doc, [allowed]);
    const cases = [
      [ask('http://localhost:5174', 'POST'), /origin http:\/\/localhost:5174 may not call this API from a browser/],
      [ask('https://localhost:5173', 'POST'), /origin https:\/\/localhost:5173 may not call/],
      [ask('null', 'POST'), /origin null may not call/],
      [
        ask(allowed, 'DELETE'),
        /DELETE \/payment-intents\/pi_1\/confirm is not an operation a browser may call \(POST is\)/,
      ],
      [ask(allowed, 'POST', 'authorization,x-api-key'), /does not take the request header x-api-key from a browser/],
    ] as const;
    for (const [request, reason] of cases) {
      const answer = rule.preflight(confirm, request);
      expect(answer.verdict, JSON.stringify(request)).toBe('refuse');
      if (answer.verdict !== 'refuse') continue;
      expect(answer.status).toBe(403);
      expect(answer.reason).toMatch(reason);
      expect(JSON.parse(answer.body)).toEqual({ title: 'CORS preflight refused.', status: 403, detail: answer.reason });
      expect(Object.keys(answer.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
    }
  });

  it('leaves every other path to the server (no preflight answered), server-only operations included', () => {
    const rule = corsRule(doc, [allowed]);
    for (const path of [
      '/payments/sessions',
      '/payments',
      '/customers',
      '/payment-intents',
      '/payment-intents/pi_1',
      '/payment-intents/pi_1/confirm/',
      '/payment-intents/pi_1/confirm/more',
      '/api/v2/payment-intents/pi_1/confirm',
      '/nowhere',
    ])
      expect(rule.preflight(path, ask(allowed, 'POST', 'authorization')), path).toEqual({ verdict: 'none' });
    // not a preflight: no Origin, or no requested method
    expect(rule.preflight(confirm, ask(undefined, 'POST'))).toEqual({ verdict: 'none' });
    expect(rule.preflight(confirm, ask(allowed, undefined))).toEqual({ verdict: 'none' });
  });

  it('adds its headers to the responses of a browser operation only, Access-Control-Allow-Origin for an allowed origin only', () => {
    const rule = corsRule(doc, [allowed, 'https://app.example'], {
      allowedHeaders: ['Prefer'],
      exposedHeaders: ['sl-violations'],
    });
    expect(rule.responseHeaders('confirmPaymentIntent', allowed)).toEqual({
      'access-control-allow-origin': allowed,
      'access-control-expose-headers': 'Idempotent-Replayed, WWW-Authenticate, Retry-After, sl-violations',
      vary: 'Origin',
    });
    expect(rule.responseHeaders('confirmPaymentIntent', 'https://app.example')['access-control-allow-origin']).toBe(
      'https://app.example',
    );
    expect(rule.responseHeaders('confirmPaymentIntent', 'http://localhost:5174')).toEqual({ vary: 'Origin' });
    expect(rule.responseHeaders('confirmPaymentIntent', undefined)).toEqual({ vary: 'Origin' });
    expect(rule.responseHeaders('createCheckoutSession', allowed)).toEqual({});
    expect(rule.responseHeaders('createPaymentIntent', allowed)).toEqual({});
    expect(rule.responseHeaders(undefined, allowed)).toEqual({});
    const preflight = rule.preflight(confirm, ask(allowed, 'POST', 'prefer'));
    expect(preflight.verdict === 'allow' && preflight.headers['access-control-allow-headers']).toBe(
      'Authorization, Content-Type, Idempotency-Key, Prefer',
    );
  });

  it('routes as a router does: a static segment wins over a parameter', () => {
    const rule = corsRule(doc, []);
    expect(rule.operationAt('POST', '/payments/refunds')).toBe('createUnreferencedRefund');
    expect(rule.operationAt('POST', '/payments/pay_1/refunds')).toBe('refundPayment');
    expect(rule.operationAt('post', '/payment-intents/pi_1/confirm')).toBe('confirmPaymentIntent');
    expect(rule.operationAt('GET', '/payment-intents/pi_1/confirm')).toBeUndefined();
  });

  it('refuses bad origins when it is made', () => {
    expect(() => corsRule(doc, ['http://localhost:5173/'])).toThrow(CorsConfigError);
    expect(() => corsRule(doc, [], { consoleOrigins: ['null'] })).toThrow(CorsConfigError);
  });
});

describe('corsRule, docs console mode', () => {
  const doc = loadBundle();
  const docs = 'http://127.0.0.1:8080';
  const app = 'http://localhost:5173';
  const ask = (origin: string, method: string, headers?: string) => ({ origin, method, headers });

  it('is off unless asked: --cors-origin alone leaves merchant operations closed', () => {
    const rule = corsRule(doc, [app]);
    expect(rule.consoleOrigins).toEqual([]);
    expect(rule.consoleOperations).toEqual([]);
    expect(rule.preflight('/customers', ask(app, 'GET', 'authorization'))).toEqual({ verdict: 'none' });
  });

  it('lets a console origin call every operation with Basic, bearer or the API key', () => {
    const rule = corsRule(doc, [], { consoleOrigins: [docs] });
    expect(rule.consoleOperations.length).toBe(browserOperationsCount(doc));
    const list = rule.preflight('/customers', ask(docs, 'GET', 'authorization'));
    expect(list.verdict === 'allow' && list.headers['access-control-allow-origin']).toBe(docs);
    const plan = rule.preflight('/payment-plans', ask(docs, 'GET', 'x-api-key'));
    expect(plan.verdict).toBe('allow');
    expect(rule.responseHeaders('listCustomers', docs)).toMatchObject({
      'access-control-allow-origin': docs,
      vary: 'Origin',
    });
  });

  it('keeps other origins out, and the console to the operations that exist and their headers', () => {
    const rule = corsRule(doc, [app], { consoleOrigins: [docs] });
    // the app origin still reaches the bearer-only operation alone
    expect(rule.preflight('/customers', ask(app, 'GET', 'authorization'))).toEqual({ verdict: 'none' });
    expect(rule.responseHeaders('listCustomers', app)).toEqual({ vary: 'Origin' });
    expect(rule.responseHeaders('listCustomers', 'http://elsewhere.example')).toEqual({ vary: 'Origin' });
    const wrongMethod = rule.preflight('/customers', ask(docs, 'PATCH', 'authorization'));
    expect(wrongMethod.verdict).toBe('refuse');
    const wrongHeader = rule.preflight('/customers', ask(docs, 'GET', 'authorization, x-forwarded-host'));
    expect(wrongHeader.verdict === 'refuse' && wrongHeader.reason).toMatch(/x-forwarded-host/);
    expect(rule.preflight('/nowhere', ask(docs, 'GET'))).toEqual({ verdict: 'none' });
  });
});

/** Every operation of the document's paths (console mode opens them all). */
function browserOperationsCount(document: JsonObject): number {
  return Object.values(document.paths as Record<string, JsonObject>).reduce(
    (n, item) => n + Object.keys(item).filter((k) => ['get', 'put', 'post', 'delete', 'patch'].includes(k)).length,
    0,
  );
}

describe('mergeVary', () => {
  it('adds names once, whatever their case', () => {
    expect(mergeVary(undefined, 'Origin')).toBe('Origin');
    expect(mergeVary('Accept-Encoding', 'Origin')).toBe('Accept-Encoding, Origin');
    expect(mergeVary('origin', 'Origin')).toBe('origin');
  });
});
