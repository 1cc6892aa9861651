// Secrets at rest and credentials, on SQLite and on PostgreSQL: a dump of the database (every row of
// every table, as text) holds no card number, no CVV, no API key, no webhook secret and no key a
// token could be forged or a fingerprint reversed with; the SQLite files are the owner's alone; the
// database refuses a process with another sandbox secret. Tokens: a longer-lived one is refused even
// when correctly signed, one obtained with a bearer token expires no later than it, and a Basic
// header with junk after its base64 authenticates nothing.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { decodeJwt, SignJWT } from 'jose';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { deriveSecrets } from '../../sandbox/app/secrets.js';
import { TOKEN_LIFETIME_SECONDS } from '../../sandbox/http/auth.js';
import { startSandbox } from '../../sandbox/server.js';
import { ISOLATED_ENV } from '../../tooling/process/sandbox-command.js';
import { databases, STORES } from '../support/postgres.js';
import {
  checkoutSession,
  newMerchant,
  sandboxContract,
  sandboxPerSuite,
  startTestSandbox,
} from '../support/sandbox.js';

const dbs = databases();
const dir = mkdtempSync(join(tmpdir(), 'sandbox-secrets-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const CARD = '4012888888881881';
const IBAN = 'DE89370400440532013000';

/** Every row of every table of the database, as one text. */
async function dump(database: string): Promise<string> {
  if (!database.startsWith('postgres')) {
    const db = new Database(database, { readonly: true });
    try {
      const tables = db.prepare("select name from sqlite_master where type = 'table'").all() as Array<{ name: string }>;
      return JSON.stringify(tables.map(({ name }) => [name, db.prepare(`select * from "${name}"`).all()]));
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: database });
  await client.connect();
  try {
    const { rows: tables } = await client.query<{ name: string }>(
      "select table_name as name from information_schema.tables where table_schema = 'public'",
    );
    const contents = [];
    for (const { name } of tables) contents.push([name, (await client.query(`select * from "${name}"`)).rows]);
    return JSON.stringify(contents);
  } finally {
    await client.end();
  }
}

describe.each(STORES)('secrets at rest on %s', (kind) => {
  let database = '';
  const sandbox = sandboxPerSuite(async () => {
    database = kind === 'sqlite' ? join(dir, 'rest.db') : await dbs.database('postgres');
    return database;
  });

  it('a dump of the database gives away no card number, CVV, API key, webhook secret or usable key', async () => {
    const s = sandbox();
    const card = { cardNumber: CARD, cvv: '739', expiryDate: '203012', cardHolderName: 'Ada Lovelace' };
    const payment = await s.call('POST', '/payments', {
      headers: { 'idempotency-key': `secrets-${kind}` },
      body: {
        transId: `SECRETS-${kind}`,
        amount: { value: 4990, currency: 'EUR' },
        paymentMethods: { integrationType: 'DIRECT', type: 'CARD', card },
        customerInfo: {
          merchantCustomerId: `cust-${kind}`,
          firstName: 'Ada',
          lastName: 'Lovelace',
          email: 'ada@example.com',
        },
        credentialOnFile: { type: 'RECURRING', initialPayment: true },
      },
    });
    expect(payment.status).toBe(201);
    const session = await s.call('POST', '/payments/sessions', {
      body: checkoutSession(`SESSION-${kind}`, {
        paymentMethods: { card: { subType: ['VISA'], cardNumber: CARD, cvv: '739' } },
      }),
    });
    expect(session.status).toBe(202);
    for (const body of [{ cardNumber: CARD }, { iban: IBAN }]) {
      expect((await s.call('POST', '/services/createPseudoNumber', { body })).status).toBe(200);
    }
    const token = await s.call('POST', '/authorization/oauth/token', {
      body: 'grant_type=client_credentials',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(token.status).toBe(200);

    const text = await dump(database);
    // What the sandbox does keep is there: the dump is not empty.
    expect(text).toContain(`SECRETS-${kind}`);
    expect(text).toContain('401288'); // the card's first six digits, as a masked number shows them
    for (const secret of [
      CARD,
      IBAN,
      s.merchant.apiKey,
      s.merchant.webhookSecret as string,
      ISOLATED_ENV.SANDBOX_SECRET,
    ]) {
      expect(text, 'a secret in the dump').not.toContain(secret);
    }
    // A field named for it, at any depth of the stored JSON (its quotes escaped inside a column's
    // text): the letters alone also turn up in a ciphertext's base64 now and then.
    expect(text, 'a CVV field in the dump').not.toMatch(/cvv[^"\\]*\\*"\s*:/i);
    const keys = deriveSecrets(ISOLATED_ENV.SANDBOX_SECRET);
    for (const key of [Buffer.from(keys.tokenKey).toString('base64url'), Buffer.from(keys.tokenKey).toString('hex')]) {
      expect(text).not.toContain(key);
    }
    // The only setting is the secret's check value: no signing or fingerprint key.
    expect(text).not.toMatch(/jwt-signing-key|pseudo-number-key/);
    // A card's fingerprint is keyed: the unkeyed digest of the number is nowhere.
    expect(text).not.toContain(createHash('sha256').update(`CARD:${CARD}`).digest('hex'));
  });

  it.runIf(kind === 'sqlite')('keeps the database files readable by their owner alone (0600)', () => {
    for (const suffix of ['', '-wal', '-shm', '-owner']) {
      expect((statSync(`${database}${suffix}`).mode & 0o777).toString(8), `${database}${suffix}`).toBe('600');
    }
  });
});

describe('the sandbox secret', () => {
  it('binds the database: a process with another secret is refused, naming the way out', async () => {
    const database = join(dir, 'bound.db');
    const merchant = newMerchant('bound');
    const first = await startSandbox({
      port: 0,
      database,
      secret: 'a'.repeat(40),
      merchants: [merchant],
      contract: sandboxContract(),
    });
    await first.close();
    await expect(
      startSandbox({ port: 0, database, secret: 'b'.repeat(40), merchants: [merchant], contract: sandboxContract() }),
    ).rejects.toThrow(/another sandbox secret: give every process the same SANDBOX_SECRET or --secret-file/);
    const again = await startSandbox({
      port: 0,
      database,
      secret: 'a'.repeat(40),
      merchants: [merchant],
      contract: sandboxContract(),
    });
    await again.close();
  });

  it('is required for data that outlives the process', async () => {
    await expect(
      startSandbox({ port: 0, database: join(dir, 'none.db'), contract: sandboxContract() }),
    ).rejects.toThrow(/needs its secret/);
  });

  it('one owner per SQLite file by its real path: a symbolic link to it is the same file', async () => {
    const database = join(dir, 'linked.db');
    const link = join(dir, 'link.db');
    const owner = await startSandbox({ port: 0, database, secret: 'c'.repeat(40), contract: sandboxContract() });
    try {
      symlinkSync(database, link);
      await expect(
        startSandbox({ port: 0, database: link, secret: 'c'.repeat(40), contract: sandboxContract() }),
      ).rejects.toThrow(/in use by another sandbox/);
    } finally {
      await owner.close();
    }
  });
});

describe('credentials', async () => {
  const s = await startTestSandbox();
  afterAll(() => s.stop());
  const keys = deriveSecrets(ISOLATED_ENV.SANDBOX_SECRET);
  const customers = (authorization: string) =>
    fetch(`${s.baseUrl}/customers`, { headers: { authorization } }).then((r) => r.status);
  const forged = (lifetimeSeconds: number) => {
    const iat = Math.floor(Date.now() / 1000);
    return new SignJWT({})
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer('payment-service-sandbox')
      .setAudience('test')
      .setSubject(s.merchant.merchantId)
      .setIssuedAt(iat)
      .setExpirationTime(iat + lifetimeSeconds)
      .sign(keys.tokenKey);
  };

  it('refuses a token that lives longer than the documented lifetime, however well signed', async () => {
    expect(await customers(`Bearer ${await forged(TOKEN_LIFETIME_SECONDS)}`)).toBe(200);
    expect(await customers(`Bearer ${await forged(10 * 365 * 24 * 3600)}`)).toBe(401);
  });

  it('a token obtained with a bearer token expires no later than that one: no renewal without the key', async () => {
    const tokenOf = async (authorization: string) => {
      const response = await fetch(`${s.baseUrl}/authorization/oauth/token`, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials',
      });
      expect(response.status).toBe(200);
      return ((await response.json()) as { access_token: string; expires_in: number }).access_token;
    };
    const first = await tokenOf(s.basic());
    const short = await forged(60);
    const second = await tokenOf(`Bearer ${short}`);
    expect(decodeJwt(second).exp).toBeLessThanOrEqual(decodeJwt(short).exp!);
    expect(decodeJwt(first).exp! - decodeJwt(first).iat!).toBe(TOKEN_LIFETIME_SECONDS);
  });

  it('Basic credentials are strict base64: junk after the padding authenticates nothing', async () => {
    const valid = Buffer.from(`${s.merchant.merchantId}:${s.merchant.apiKey}`).toString('base64');
    expect(await customers(`Basic ${valid}`)).toBe(200);
    for (const junk of ['=!junk', '==', '@@@@', ' x']) expect(await customers(`Basic ${valid}${junk}`), junk).toBe(401);
    expect(
      await customers(`Basic ${Buffer.from(`${s.merchant.merchantId}\u0000:${s.merchant.apiKey}`).toString('base64')}`),
    ).toBe(401);
  });
});
