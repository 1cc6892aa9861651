// What the tests hold the sandbox's webhook deliveries to, as contract-check.ts holds its responses:
// the contract's `webhooks` (found with the walker in the bundle the global setup made), and the
// signature verified with the SDK's own helper. A delivery names its webhook by what it carries: the
// one whose required header parameters it sends (the enhanced notification's signature), else the one
// that requires none (the basic notification). Its method, media type, headers and body are checked,
// the body for members the schema does not declare too (the basic one "contains only the payId").
import type { IncomingHttpHeaders } from 'node:http';
import type { MerchantCredentials } from '../../sandbox/server.js';
import { signWebhook, verifyWebhookSignature, WEBHOOK_SIGNATURE_HEADER } from '../../src/webhooks/index.js';
import { isObject, locate, type OperationEntry, operations, toPointer } from '../../tooling/openapi/walker.js';
import { type Json, type JsonObject, loadBundle } from './openapi.js';
import { createSchemaValidator, formatErrors, type SchemaValidator, undeclaredMembers } from './schema.js';

/** A request as a merchant's endpoint received it. */
export interface ReceivedDelivery {
  method: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** The webhook secrets of a merchant, or undefined when the test does not know them. */
export type SecretsOf = (merchantId: string) => readonly string[] | undefined;

export class WebhookConformanceError extends Error {
  constructor(readonly violations: string[]) {
    super(`the sandbox delivered a webhook the contract does not declare:\n  ${violations.join('\n  ')}`);
    this.name = 'WebhookConformanceError';
  }
}

const secrets = new Map<string, readonly string[]>();

/** Makes a merchant's secrets known to every receiver of this test file (the sandboxes the tests start call it). */
export function registerWebhookSecrets(merchant: Pick<MerchantCredentials, 'merchantId' | 'webhookSecret'>): void {
  const list = Array.isArray(merchant.webhookSecret) ? merchant.webhookSecret : [merchant.webhookSecret as string];
  secrets.set(merchant.merchantId, list);
}

/** The secrets registered for a merchant. */
export const registeredSecrets: SecretsOf = (merchantId) => secrets.get(merchantId);

interface Webhook {
  name: string;
  method: string;
  mediaType: string | undefined;
  bodyPointer: string | undefined;
  /** Header parameters, lower-cased, with the pointer of their schema. */
  headers: Array<{ name: string; required: boolean; schemaPointer: string }>;
}

let loaded: { bundle: JsonObject; validator: SchemaValidator; webhooks: Webhook[] } | undefined;

function contractWebhooks() {
  if (loaded) return loaded;
  const bundle = loadBundle();
  const webhooks = operations(bundle, ['webhooks']).map((entry: OperationEntry): Webhook => {
    const body = entry.operation.requestBody;
    const content = isObject(body) && isObject((body as JsonObject).content) ? (body as JsonObject).content : {};
    const mediaType = Object.keys(content as JsonObject)[0];
    // The path item's parameters, then the operation's (which override them), where each lives
    // (through its $ref), so that the pointer of its schema resolves in the bundle.
    const byName = new Map<string, Webhook['headers'][number]>();
    const lists: Array<[unknown, string[]]> = [
      [entry.pathItem.parameters, [...entry.tokens.slice(0, -1), 'parameters']],
      [entry.operation.parameters, [...entry.tokens, 'parameters']],
    ];
    for (const [list, tokens] of lists) {
      if (!Array.isArray(list)) continue;
      for (let i = 0; i < list.length; i++) {
        const { node, pointer } = locate<JsonObject>(bundle, toPointer([...tokens, i]));
        if (node.in !== 'header' || typeof node.name !== 'string') continue;
        const name = node.name.toLowerCase();
        byName.set(name, { name, required: node.required === true, schemaPointer: `${pointer}/schema` });
      }
    }
    const headers = [...byName.values()];
    return {
      name: entry.key,
      method: entry.method,
      mediaType,
      bodyPointer: mediaType
        ? locate(bundle, toPointer([...entry.tokens, 'requestBody', 'content', mediaType, 'schema'])).pointer
        : undefined,
      headers,
    };
  });
  if (webhooks.length === 0) throw new Error('the contract has no webhooks to hold deliveries to');
  loaded = { bundle, validator: createSchemaValidator(bundle), webhooks };
  return loaded;
}

const headerOf = (headers: IncomingHttpHeaders, name: string) => {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value;
};

/** Everything wrong with a delivery (empty when it conforms); `secretsOf` gives the secrets its signature is verified with. */
export async function checkDelivery(
  delivery: ReceivedDelivery,
  secretsOf: SecretsOf = registeredSecrets,
): Promise<string[]> {
  const { bundle, validator, webhooks } = contractWebhooks();
  const sends = (w: Webhook) => w.headers.filter((h) => h.required).every((h) => headerOf(delivery.headers, h.name));
  const requiring = webhooks.filter((w) => w.headers.some((h) => h.required) && sends(w));
  const webhook = requiring[0] ?? webhooks.find((w) => !w.headers.some((h) => h.required));
  if (!webhook) return ['the delivery sends the required headers of no webhook of the contract'];
  const problems: string[] = [];
  const at = (text: string) => problems.push(`${webhook.name}: ${text}`);

  if (delivery.method.toLowerCase() !== webhook.method) at(`sent with ${delivery.method}, not ${webhook.method}`);
  const contentType = headerOf(delivery.headers, 'content-type') ?? '';
  if (webhook.mediaType && contentType.split(';')[0]!.trim().toLowerCase() !== webhook.mediaType)
    at(`content-type ${contentType || '(none)'}, not ${webhook.mediaType}`);
  for (const h of webhook.headers) {
    const value = headerOf(delivery.headers, h.name);
    if (value === undefined) continue;
    const errors = validator.validate(h.schemaPointer, value);
    if (errors.length > 0) at(`header ${h.name}: ${formatErrors(errors)}`);
  }

  let body: Json | undefined;
  try {
    body = JSON.parse(delivery.body) as Json;
  } catch {
    at(`the body is not JSON: ${delivery.body.slice(0, 80)}`);
  }
  if (body !== undefined && webhook.bodyPointer) {
    const errors = validator.validate(webhook.bodyPointer, body);
    if (errors.length > 0) at(`body: ${formatErrors(errors)}`);
    const schema = locate(bundle, webhook.bodyPointer).node as Json;
    for (const member of undeclaredMembers(bundle, schema, body)) at(`body: ${member} is not declared by the schema`);
  }

  if (webhook.headers.some((h) => h.name === WEBHOOK_SIGNATURE_HEADER.toLowerCase())) {
    const merchantId = isObject(body) && typeof body.merchantId === 'string' ? body.merchantId : undefined;
    const known = merchantId === undefined ? undefined : secretsOf(merchantId);
    if (!known || known.length === 0)
      at(`no webhook secret of merchant ${merchantId ?? '(none in the body)'} to verify the signature with`);
    else {
      try {
        await verifyWebhookSignature(delivery.body, delivery.headers as Record<string, string>, known);
      } catch (err) {
        at(`signature: ${(err as Error).message}`);
      }
    }
  }
  return problems;
}

/**
 * The checks of one merchant endpoint in a test: each delivery checked as it arrives, before the
 * test can see it; its violations kept until assertConforming() reports them (once each).
 */
export class DeliveryChecks {
  private violations: string[] = [];
  constructor(private readonly secretsOf: SecretsOf = registeredSecrets) {}

  /** Checks a delivery received on `path` and keeps what is wrong with it. */
  async check(path: string, delivery: ReceivedDelivery): Promise<void> {
    const problems = await checkDelivery(delivery, this.secretsOf).catch((err: unknown) => [
      `the check failed: ${(err as Error).message}`,
    ]);
    this.violations.push(...problems.map((p) => `${path}: ${p}`));
  }

  /** Throws WebhookConformanceError naming the violations kept since the last call, if any. */
  assertConforming(): void {
    if (this.violations.length === 0) return;
    const violations = this.violations;
    this.violations = [];
    throw new WebhookConformanceError(violations);
  }
}

/** The contract's own example of a webhook's body (the first one it gives). */
export function webhookExample(webhook: string): Record<string, unknown> {
  const entry = operations(loadBundle(), ['webhooks']).find((e) => e.key === webhook);
  if (!entry) throw new Error(`no webhook ${webhook}`);
  const examples = locate<Record<string, { $ref?: string; value?: unknown }>>(
    loadBundle(),
    toPointer([...entry.tokens, 'requestBody', 'content', 'application/json', 'examples']),
  ).node;
  const first = Object.values(examples)[0]!;
  const example = first.$ref ? locate<{ value: unknown }>(loadBundle(), first.$ref).node : first;
  return structuredClone(example.value) as Record<string, unknown>;
}

/** A delivery of `body` (or of `text`, sent as it is) signed with `secret`, as the sandbox sends an enhanced notification. */
export const signedDelivery = async (
  body: Record<string, unknown>,
  secret: string,
  text = JSON.stringify(body),
): Promise<ReceivedDelivery> => ({
  method: 'POST',
  headers: {
    'content-type': 'application/json',
    [WEBHOOK_SIGNATURE_HEADER.toLowerCase()]: await signWebhook(text, secret),
  },
  body: text,
});

/** An unsigned JSON delivery of `body`, as the sandbox sends a basic notification. */
export const basicDelivery = (body: unknown): ReceivedDelivery => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});
