// Planner statistics for a young database. PostgreSQL plans each query from ANALYZE's statistics,
// which autovacuum gathers about a minute after the writes start (its naptime). Until then every
// index that leads with the scope looks as good as the unique one (each costs one row), and the
// planner took the duplicate-check index for a payment's look-up by transId or payId: a scan of the
// scope's payments, growing with them, most of a create on a fresh database (docs/benchmarks.md). A table analyzed
// once with a few hundred rows stays well planned as it grows (transId and payId come out unique,
// the scope columns not), and autovacuum keeps it so afterwards.
import { type Kysely, sql } from 'kysely';
import type { Database } from '../../schema.js';

/** How often the tables are checked, and how many rows a table needs before its first ANALYZE. */
export const STATISTICS_INTERVAL_MS = 1_000;
export const STATISTICS_MIN_ROWS = 100;

export interface StatisticsKeeper {
  /** Stops checking; resolves once a pass under way has ended. */
  stop(): Promise<void>;
}

/** The tables of the current schema never analyzed that hold enough rows to be worth it. */
export async function tablesWithoutStatistics(db: Kysely<Database>, minRows = STATISTICS_MIN_ROWS): Promise<string[]> {
  const { rows } = await sql<{ relname: string }>`
    select relname from pg_stat_user_tables
    where schemaname = current_schema() and last_analyze is null and last_autoanalyze is null and n_live_tup >= ${minRows}
  `.execute(db);
  return rows.map((r) => r.relname);
}

/**
 * Analyzes each table that autovacuum has not analyzed yet, as soon as it holds enough rows; once
 * per table and process (a table its user may not analyze, PostgreSQL skips with a warning, and
 * autovacuum analyzes later). A failing pass is tried again a second later; the first error is
 * reported.
 */
export function keepStatistics(db: Kysely<Database>, onError: (message: string) => void): StatisticsKeeper {
  const analyzed = new Set<string>();
  let running: Promise<void> | undefined;
  let stopped = false;
  let reported = false;
  const pass = async () => {
    try {
      for (const table of await tablesWithoutStatistics(db)) {
        if (stopped || analyzed.has(table)) continue;
        // SKIP_LOCKED: another process (or autovacuum) analyzing it already is as good.
        await sql`analyze (skip_locked) ${sql.table(table)}`.execute(db);
        analyzed.add(table);
      }
    } catch (error) {
      if (!reported) onError((error as Error).message);
      reported = true;
    } finally {
      running = undefined;
    }
  };
  const timer = setInterval(() => {
    if (!running && !stopped) running = pass();
  }, STATISTICS_INTERVAL_MS);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
