// The PostgreSQL store's pipelined connection (sandbox/store/dialects/postgres/connection.ts) on a
// fake pg client: the statements of one turn of the event loop go out in one write; a write's error
// is thrown by the next statement awaited and by the commit; a connection that breaks once the
// commit was sent leaves its outcome unknown (group commit then runs nothing again).
import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import {
  CommitOutcomeUnknown,
  PipelinedConnection,
  PreparedStatements,
} from '../../sandbox/store/dialects/postgres/connection.js';

/** A pg client that answers each statement with `answer(text)`, and counts the socket's writes. */
function fakeClient(answer: (text: string) => Promise<Partial<pg.QueryResult>>) {
  const log = { writes: 0, corked: 0, sent: [] as string[] };
  const stream = {
    cork: () => {
      log.corked++;
    },
    uncork: () => {
      log.corked--;
      if (log.corked === 0) log.writes++;
    },
  };
  const client = {
    connection: { stream },
    // Answered on a later turn, as over a socket.
    query: (config: pg.QueryConfig) => {
      log.sent.push(config.name ? `${config.name}:${config.text}` : config.text);
      return new Promise((resolve) => setImmediate(resolve)).then(() => answer(config.text));
    },
  };
  return { client: client as unknown as pg.PoolClient, log };
}

const ok = (command = 'INSERT') => Promise.resolve({ command, rowCount: 1, rows: [] });
const pgError = (code: string) => Object.assign(new Error(`failed (${code})`), { code });

describe('the pipelined connection (PostgreSQL)', () => {
  it('sends the statements of one turn of the event loop in one write, prepared ones by name', async () => {
    const statements = new PreparedStatements();
    statements.add('insert into t values ($1)');
    const { client, log } = fakeClient((text) => ok(text === 'commit' ? 'COMMIT' : 'INSERT'));
    const connection = new PipelinedConnection(client, statements);
    void connection.send('begin');
    void connection.send('insert into t values ($1)', [1]);
    void connection.send('insert into t values ($1)', [2]);
    await connection.commit();
    expect(log.sent).toEqual([
      'begin',
      'sandbox_1:insert into t values ($1)',
      'sandbox_1:insert into t values ($1)',
      'commit',
    ]);
    expect(log.writes).toBe(1);
  });

  it('throws a write’s error at the next statement awaited, and at the commit (which PostgreSQL turned into a rollback)', async () => {
    const unique = pgError('23505');
    const { client } = fakeClient((text) =>
      text.startsWith('insert')
        ? Promise.reject(unique)
        : text === 'select 1'
          ? Promise.reject(pgError('25P02'))
          : ok(text === 'commit' ? 'ROLLBACK' : 'BEGIN'),
    );
    const connection = new PipelinedConnection(client, new PreparedStatements());
    void connection.send('begin');
    void connection.send('insert into t values ($1)', [1]);
    await expect(connection.query('select 1')).rejects.toBe(unique);
    await expect(connection.commit()).rejects.toBe(unique);
  });

  it('maps a write’s error as its sender asks', async () => {
    const taken = new Error('taken over');
    const { client } = fakeClient((text) =>
      text.startsWith('with') ? Promise.reject(pgError('22012')) : ok(text === 'commit' ? 'ROLLBACK' : 'BEGIN'),
    );
    const connection = new PipelinedConnection(client, new PreparedStatements());
    void connection.send(
      'with completed as (update t set x = 1 returning 1) select 1 / count(*) from completed',
      [],
      (e) => ((e as { code?: string }).code === '22012' ? taken : e),
    );
    await expect(connection.commit()).rejects.toBe(taken);
  });

  it('a connection broken once the commit was sent leaves the outcome unknown', async () => {
    const { client } = fakeClient((text) =>
      text === 'commit' ? Promise.reject(new Error('Connection terminated unexpectedly')) : ok(),
    );
    const connection = new PipelinedConnection(client, new PreparedStatements());
    void connection.send('begin');
    void connection.send('insert into t values ($1)', [1]);
    await expect(connection.commit()).rejects.toBeInstanceOf(CommitOutcomeUnknown);
  });
});
