import type { Form } from '@sqlinbox/core';
import type { Params, Statement } from '../params.js';
import { Feature, IN_WORK, type QueueSql, RANK } from '../queue.js';

/** Most candidates one claim under per-key concurrency ranks. */
const CANDIDATES_MAX = 10_000;

/** How many due rows, at most, a bounded pick reads from the front of the queue, per candidate it wants. */
const FRONT_PER_CANDIDATE = 5;

/**
 * Keys a bounded pick steps through, when full keys hold the front of the queue, per row it
 * wants: full keys and keys whose rows are all in work or waiting are stepped over too.
 */
const KEYS_PER_ROW = 4;

/** Most keys a bounded pick steps through (MySQL stops a recursion at 1,000 by default). */
const KEYS_MAX = 500;

/** Per-key concurrency (a table that declares `concurrency`): the lease claim that counts each key's rows in work. */
export class ConcurrencyStatements<Q extends QueueSql = QueueSql> extends Feature<Q> {
  /**
   * The claim forms in which the dialect holds per-key concurrency. Default: none, a table that
   * declares concurrency is refused at start; a dialect whose claims of a table cannot overlap
   * (its {@link turn}, or a transaction that serializes writers) lists `lease`.
   */
  readonly forms: readonly Form[] = [];

  /**
   * The statement that waits for this table's turn to claim, run first in the claim's own
   * transaction and held until it ends, so claims of one table under per-key concurrency never
   * overlap (two brokers would both see a key's last free slot); it answers `ok` 1 when the turn
   * is taken. Default: undefined, where opening the transaction already serializes writers
   * (SQLite's `BEGIN IMMEDIATE`). PostgreSQL, SQL Server override it.
   */
  turn(): Statement | undefined {
    return undefined;
  }

  /**
   * Whether {@link pick} is the bounded pick ({@link boundedPick}), which a database with
   * recursive common table expressions and window functions runs. Default false: the pick scans
   * the due rows in claim order until it has its candidates, which reads every due row of a full
   * key ahead of them (one key of 50,000 ready rows in work to its limit: a claim of 400 ms).
   */
  readonly bounded: boolean = false;

  /** The text that names this table's claim turn (`sqlinbox.concurrency:<table>`), bound as a value. */
  get turnName(): string {
    return `sqlinbox.concurrency:${this.t.table}`;
  }

  /**
   * The pick on alias `x`, in claim order, at most `n` rows:
   *
   * 1. `c`, the candidates: the first `n * limit` due rows (FIFO: heads) in claim order whose key
   *    is NULL or has a free slot (fewer rows in work, a lease running at `now`, than the limit),
   *    read in claim order so the scan stops there instead of reading the whole backlog;
   * 2. each candidate ranked within its key in claim order, beside its key's rows in work;
   * 3. kept where the key is NULL or the rank is within the limit less the key's rows in work.
   *
   * The candidates are the first rows of their keys, so a rank among them is the rank among the
   * key's due rows. A claim whose candidates are mostly one key's takes fewer than `n` rows (at
   * least one, where any row may be taken); the next claim passes over that key once it is full.
   * `columns` is the select list over `x` (the id, and any column the caller needs, as
   * `x.<column>`).
   */
  pick(p: Params, n: number, now: Date, columns: string): string {
    if (this.bounded) return this.boundedPick(p, n, now, columns);
    const { q, s, t } = this;
    const c = q.role(t.concurrency?.column, 'concurrency key');
    const limit = t.concurrency!.limit;
    const names = [t.id.column, c, t.priority, t.group].filter(
      (x, i, all): x is string => x !== undefined && all.indexOf(x) === i,
    );
    // Each part is written in text order: positional placeholders take their values in that order.
    const inWork = (a: string) =>
      `(SELECT COUNT(*) FROM ${q.table} w WHERE ${q.col('w', c)} = ${q.col(a, c)}` +
      ` AND ${q.col('w', q.role(t.lease, 'lease'))} > ${s.time(p, now)}` +
      `${q
        .live(p, 'w')
        .map((x) => ` AND ${x}`)
        .join('')})`;
    let ranked =
      `SELECT ${names.map((x) => q.col('c', x)).join(', ')},` +
      ` ROW_NUMBER() OVER (PARTITION BY ${q.col('c', c)} ORDER BY ${q.order('c')}) AS ${q.ident(RANK)},` +
      ` ${inWork('c')} AS ${q.ident(IN_WORK)} FROM (`;
    let free = `${q.due(p, now, 'q')}${q.head('q')} AND (${q.col('q', c)} IS NULL OR `;
    free += `${inWork('q')} < ${p.bind(limit)})`;
    ranked += `${s.select(p, {
      columns: names.map((x) => q.col('q', x)).join(', '),
      table: `${q.table} q`,
      alias: 'q',
      where: free,
      order: q.order('q'),
      limit: Math.min(n * limit, CANDIDATES_MAX),
    })}) c`;
    const where = `(${q.col('x', c)} IS NULL OR x.${q.ident(RANK)} <= ${p.bind(limit)} - x.${q.ident(IN_WORK)})`;
    return s.select(p, {
      columns,
      table: `(${ranked}) x`,
      alias: 'x',
      where,
      order: q.order('x'),
      limit: n,
    });
  }

  /**
   * {@link pick}, with the rows it reads bounded however the due rows lie among the keys:
   *
   * 1. `sqlinbox_front`: of the first `n * limit * 5` due rows in claim order (FIFO: heads), the
   *    first `n * limit` whose key is NULL or has a free slot. The front is read whole only where
   *    full keys hold it; otherwise the read stops at the candidates, as the plain pick's does.
   * 2. Only where fewer than `n` of the front's rows can be taken (a key's first `limit`):
   *    `sqlinbox_keys` steps through the table's keys in
   *    key order, one index probe each (`MIN(key) > previous key`), at most `4 * n + 20` keys, and
   *    `sqlinbox_heads` takes of each key with a free slot its first due row that no lease ever
   *    held (`lease IS NULL`, in claim order: the concurrency index `(key, lease)`, whose entries
   *    of one key and a NULL lease follow the id). A full key's rows are never read.
   * 3. Both ranked as in the plain pick.
   *
   * While full keys hold the front of the queue, the other keys' rows are taken in key order
   * rather than claim order, one per key and claim; a row whose lease ran out is taken once the
   * front reaches it. The limits hold either way: a key never gets more rows than its free slots.
   */
  boundedPick(p: Params, n: number, now: Date, columns: string): string {
    const { q, s, t } = this;
    const c = q.role(t.concurrency?.column, 'concurrency key');
    const lease = q.role(t.lease, 'lease');
    const limit = t.concurrency!.limit;
    const names = [t.id.column, c, t.priority, t.group].filter(
      (x, i, all): x is string => x !== undefined && all.indexOf(x) === i,
    );
    const inWork = (key: string) =>
      `(SELECT COUNT(*) FROM ${q.table} w WHERE ${q.col('w', c)} = ${key}` +
      ` AND ${q.col('w', lease)} > ${s.time(p, now)}` +
      `${q
        .live(p, 'w')
        .map((x) => ` AND ${x}`)
        .join('')})`;
    const want = Math.min(n * limit, CANDIDATES_MAX);
    // Each part is written in text order: positional placeholders take their values in that order.
    let sql = `WITH RECURSIVE sqlinbox_front AS (`;
    const window = s.select(p, {
      columns: names.map((x) => q.col('f', x)).join(', '),
      table: `${q.table} f`,
      alias: 'f',
      where: `${q.due(p, now, 'f')}${q.head('f')}`,
      order: q.order('f'),
      limit: Math.min(want * FRONT_PER_CANDIDATE, CANDIDATES_MAX),
    });
    sql += s.select(p, {
      columns: names.map((x) => q.col('q', x)).join(', '),
      table: `(${window}) q`,
      alias: 'q',
      where: `${q.col('q', c)} IS NULL OR ${inWork(q.col('q', c))} < ${p.bind(limit)}`,
      order: q.order('q'),
      limit: want,
    });
    sql += `), sqlinbox_keys (k, i) AS (SELECT MIN(${q.col('m', c)}), 1 FROM ${q.table} m`;
    sql += ` WHERE ${q.col('m', c)} IS NOT NULL${q.unsettled('m')}`;
    // The front's rows that can be taken at most (a key's first `limit`), fewer than wanted.
    sql += ` AND (SELECT COUNT(*) FROM (SELECT ${q.col('z', c)}, ROW_NUMBER() OVER (PARTITION BY ${q.col('z', c)}`;
    sql += ` ORDER BY ${q.order('z')}) AS r FROM sqlinbox_front z) y WHERE ${q.col('y', c)} IS NULL OR y.r <= ${p.bind(limit)})`;
    sql += ` < ${p.bind(n)}`;
    sql += ` UNION ALL SELECT (SELECT MIN(${q.col('m', c)}) FROM ${q.table} m WHERE ${q.col('m', c)} > sqlinbox_keys.k${q.unsettled('m')}),`;
    sql += ` sqlinbox_keys.i + 1 FROM sqlinbox_keys WHERE sqlinbox_keys.k IS NOT NULL AND sqlinbox_keys.i < ${p.bind(Math.min(n * KEYS_PER_ROW + 20, KEYS_MAX))})`;
    const head = s.select(p, {
      columns: q.col('b', t.id.column),
      table: `${q.table} b`,
      alias: 'b',
      where: `${q.col('b', c)} = sqlinbox_keys.k AND ${q.col('b', lease)} IS NULL AND ${q.due(p, now, 'b')}${q.head('b')}`,
      order: `${q.col('b', lease)}, ${q.order('b')}`,
      limit: 1,
    });
    sql += `, sqlinbox_heads AS (SELECT ${names.map((x) => q.col('h', x)).join(', ')} FROM sqlinbox_keys`;
    sql += ` JOIN ${q.table} h ON ${q.col('h', t.id.column)} = (${head})`;
    sql += ` WHERE ${inWork('sqlinbox_keys.k')} < ${p.bind(limit)})`;
    const listed = names.map((x) => q.ident(x)).join(', ');
    sql += `, sqlinbox_candidates AS (SELECT ${listed} FROM sqlinbox_front UNION SELECT ${listed} FROM sqlinbox_heads) `;
    const ranked =
      `SELECT ${names.map((x) => q.col('c', x)).join(', ')},` +
      ` ROW_NUMBER() OVER (PARTITION BY ${q.col('c', c)} ORDER BY ${q.order('c')}) AS ${q.ident(RANK)},` +
      ` ${inWork(q.col('c', c))} AS ${q.ident(IN_WORK)} FROM sqlinbox_candidates c`;
    const where = `(${q.col('x', c)} IS NULL OR x.${q.ident(RANK)} <= ${p.bind(limit)} - x.${q.ident(IN_WORK)})`;
    return (
      sql +
      s.select(p, {
        columns,
        table: `(${ranked}) x`,
        alias: 'x',
        where,
        order: q.order('x'),
        limit: n,
      })
    );
  }

  /**
   * The lease claim, one statement in the claim's transaction (after {@link turn}): the lease
   * claim's update over the rows of {@link pick}, each still due when the update reaches it. The
   * pick reads without locks: a plain read.
   */
  claim(n: number, now: Date, expiry: Date): Statement {
    const { q, s, t } = this;
    const p = q.params();
    const set = q.leaseSets(p, expiry);
    const pick = this.pick(p, n, now, q.col('x', t.id.column));
    const due = q.due(p, now, 't');
    return s.plainRead(
      p.statement(
        s.update({
          table: q.table,
          alias: 't',
          set,
          where: `${s.inSelect(q.col('t', t.id.column), pick)} AND ${due}`,
          returning: '*',
        }),
      ),
    );
  }
}
