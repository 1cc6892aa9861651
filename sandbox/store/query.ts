// The pieces of a query that every repository writes the same way: the scope filter, a page of a
// list, the unique violation as DuplicateKeyError.
import type { SelectQueryBuilder } from 'kysely';
import type { Scope } from '../domain/types.js';
import type { StoreDialect } from './dialect.js';
import { parse } from './rows.js';
import type { Database } from './schema.js';
import type { DataFilter, Page, PageRequest } from './store.js';

/** A scope for compiling a query once (its values are parameters, bound on each run). */
export const PLACEHOLDER_SCOPE: Scope = { merchantId: '', environment: '' as Scope['environment'] };

/** A sample row for compiling: every value a parameter (Kysely writes a null as the literal `null`). */
export const placeholders = <T extends Record<string, unknown>>(row: T): T =>
  Object.fromEntries(Object.keys(row).map((k) => [k, ''])) as T;

/** A query of a scoped table (every one but settings and merchants): it can filter on the scope columns. */
interface ScopedQuery {
  where(column: 'merchant_id' | 'environment', op: '=', value: string): unknown;
}

/** `query` restricted to one scope: a record of one merchant in one environment is invisible to any other. */
export function scoped<Q extends ScopedQuery>(query: Q, scope: Scope): Q {
  return (query.where('merchant_id', '=', scope.merchantId) as Q).where('environment', '=', scope.environment) as Q;
}

/** `query` restricted to the scopes `filter` selects: every merchant's, one merchant's, one environment's, or one scope. */
export function filtered<Q extends ScopedQuery>(query: Q, filter: DataFilter): Q {
  let q = query;
  if (filter.merchantId !== undefined) q = q.where('merchant_id', '=', filter.merchantId) as Q;
  if (filter.environment !== undefined) q = q.where('environment', '=', filter.environment) as Q;
  return q;
}

type Rows<TB extends keyof Database> = SelectQueryBuilder<Database, TB, { data: string }>;

/** A page of `query`'s records in the order `order` gives, and how many match over all pages. */
export async function paged<T, TB extends keyof Database>(
  query: SelectQueryBuilder<Database, TB, object>,
  page: PageRequest,
  order: (rows: Rows<TB>) => Rows<TB>,
): Promise<Page<T>> {
  // biome-ignore lint/suspicious/noExplicitAny: count and rows of any scoped table; Kysely's overloads need its widest builder
  const q = query as SelectQueryBuilder<any, any, object>;
  const [count, rows] = await Promise.all([
    q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    order(q.select('data') as Rows<TB>)
      .limit(page.pageSize)
      .offset((page.page - 1) * page.pageSize)
      .execute(),
  ]);
  return { total: Number(count.n), items: rows.map((r) => parse<T>(r)) };
}

/** `work`, with the database's unique violations as DuplicateKeyError. */
export async function mapped<T>(dialect: StoreDialect, work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    throw dialect.duplicateKey(error) ?? error;
  }
}

/** `query` holding its rows until the transaction ends when `options.lock` asks (see StoreDialect.lockForUpdate). */
export const locked = <TB extends keyof Database, O>(
  dialect: StoreDialect,
  query: SelectQueryBuilder<Database, TB, O>,
  options: { lock?: boolean } | undefined,
) => (options?.lock ? dialect.lockForUpdate(query) : query);
