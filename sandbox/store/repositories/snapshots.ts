// Snapshots: the scoped tables' rows of some scopes saved as JSON in the database (any process on
// it can restore them), and written back in place of what those scopes hold then. Merchants and
// their credentials are not scoped records: a snapshot never holds or restores them.
import type { Environment } from '../../domain/types.js';
import { filtered } from '../query.js';
import type { Database } from '../schema.js';
import type { DataFilter, ResetCounts, SnapshotInfo, StoreTransaction } from '../store.js';
import type { Context } from './context.js';
import { deleteScoped, SCOPED_TABLES } from './data.js';

type ScopedTable = (typeof SCOPED_TABLES)[keyof ResetCounts];
type Row = Record<string, unknown> & { merchant_id: string };

const tables = () => Object.entries(SCOPED_TABLES) as Array<[keyof ResetCounts, ScopedTable]>;

/** A table's rows in a snapshot: its columns once, then each row's values in their order (compact JSON). */
interface TableRows {
  columns: string[];
  rows: unknown[][];
}

/** A restored delivery is nobody's: a claim taken before the snapshot would otherwise hold it. */
function released(table: ScopedTable, { columns, rows }: TableRows): TableRows {
  if (table !== 'webhook_deliveries') return { columns, rows };
  const held = ['locked_until', 'claim_token'].map((c) => columns.indexOf(c));
  return { columns, rows: rows.map((row) => row.map((value, i) => (held.includes(i) ? null : value))) };
}

export function snapshotsRepository(context: Context): StoreTransaction['snapshots'] {
  const { db } = context;
  const info = (row: Omit<Database['snapshots'], 'data'>): SnapshotInfo => ({
    id: row.id,
    filter: {
      ...(row.merchant_id !== null ? { merchantId: row.merchant_id } : {}),
      ...(row.environment !== null ? { environment: row.environment as Environment } : {}),
    },
    createdAt: row.created_at,
    counts: JSON.parse(row.counts) as ResetCounts,
    merchants: JSON.parse(row.merchants) as string[],
  });

  /**
   * Writes the rows back, one precompiled insert of the table's columns run per row: a multi-row
   * insert of thousands of values costs more to build in Kysely than SQLite takes to run them one by one.
   */
  async function insertRows(table: ScopedTable, saved: TableRows): Promise<void> {
    if (saved.rows.length === 0) return;
    const { columns, rows } = released(table, saved);
    const sample = Object.fromEntries(columns.map((column) => [column, '']));
    // biome-ignore lint/suspicious/noExplicitAny: a row of any scoped table, as that table gave it
    const insert = context.dialect.precompile(db.insertInto(table).values(sample as any));
    for (const row of rows) await insert(db, row);
  }

  return {
    async take({ id, filter, createdAt }) {
      const data: Partial<Record<ScopedTable, TableRows>> = {};
      const counts = {} as ResetCounts;
      const merchants = new Set<string>();
      for (const [name, table] of tables()) {
        const rows = (await filtered(db.selectFrom(table).selectAll(), filter).execute()) as Row[];
        const columns = rows[0] ? Object.keys(rows[0]) : [];
        data[table] = { columns, rows: rows.map((row) => columns.map((column) => row[column])) };
        counts[name] = rows.length;
        for (const row of rows) merchants.add(row.merchant_id);
      }
      await db
        .insertInto('snapshots')
        .values({
          id,
          merchant_id: filter.merchantId ?? null,
          environment: filter.environment ?? null,
          created_at: createdAt,
          counts: JSON.stringify(counts),
          merchants: JSON.stringify([...merchants].sort()),
          data: JSON.stringify(data),
        })
        .execute();
      return counts;
    },

    async get(id) {
      const row = await db
        .selectFrom('snapshots')
        .select(['id', 'merchant_id', 'environment', 'created_at', 'counts', 'merchants'])
        .where('id', '=', id)
        .executeTakeFirst();
      return row ? info(row) : undefined;
    },

    async restore(id) {
      const row = await db.selectFrom('snapshots').selectAll().where('id', '=', id).executeTakeFirst();
      if (!row) return undefined;
      const snapshot = info(row);
      const data = JSON.parse(row.data) as Partial<Record<ScopedTable, TableRows>>;
      await deleteScoped(context, snapshot.filter satisfies DataFilter);
      for (const [, table] of tables()) if (data[table]) await insertRows(table, data[table]);
      return snapshot.counts;
    },
  };
}
