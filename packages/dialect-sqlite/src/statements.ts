import type { AnyTable, FinishSettlement, Insert, Settlement } from '@sqlinbox/core';
import { ConfigError } from '@sqlinbox/core';
import { ident, nowExpr, Params, type Statement, tableName } from './sql.js';

/**
 * The SQL of one queue table, one function per statement kind (the same names in every dialect and
 * in core's `TableOps`: claimLease, extendLeases, candidates, take, settle, settleMany,
 * moveToDeadLetter, insert, stats). Every time
 * column holds INTEGER epoch milliseconds; the driver binds Dates as such.
 */

/** Where a claim may not look: the dead-letter group, when the subscription has one. */
export interface Scope {
  readonly deadGroup: string | undefined;
  /** Ids a claim passes over (a relay's held-back records, R-OUT-1), read at each statement. */
  readonly exclude?: ReadonlySet<unknown> | undefined;
}

/** Most bound values per statement: under SQLite's 32766 with room to spare. */
const MAX_PARAMS = 10_000;

const col = (alias: string, name: string) => `${alias}${ident(name)}`;

/**
 * The due condition over `alias`: unsettled, past `retry_after`, lease absent or ended, out of
 * the dead-letter group, and not an excluded id. `now` null reads the database clock.
 */
export function due(t: AnyTable, scope: Scope, p: Params, now: Date | null, alias = ''): string {
  const parts: string[] = [];
  if (t.processedAt !== undefined) parts.push(`${col(alias, t.processedAt)} IS NULL`);
  if (t.retryAfter !== undefined) {
    const c = col(alias, t.retryAfter);
    parts.push(`(${c} IS NULL OR ${c} <= ${nowExpr(p, now)})`);
  }
  if (t.lease !== undefined) {
    const c = col(alias, t.lease);
    parts.push(`(${c} IS NULL OR ${c} <= ${nowExpr(p, now)})`);
  }
  if (t.group !== undefined && scope.deadGroup !== undefined) {
    parts.push(`${col(alias, t.group)} IS NOT ${p.bind(scope.deadGroup)}`);
  }
  if (scope.exclude !== undefined && scope.exclude.size > 0) {
    parts.push(`${col(alias, t.id.column)} NOT IN (${p.list(scope.exclude)})`);
  }
  return parts.length === 0 ? '1' : parts.join(' AND ');
}

/**
 * FIFO: the row `q` is its group's head when no unsettled row of its group has a smaller id. `q`
 * is due, so out of the dead-letter group, and so is every row sharing its group. A NULL group is
 * no group.
 */
function head(t: AnyTable): string {
  if (t.group === undefined) return '';
  const g = ident(t.group);
  const id = ident(t.id.column);
  const unsettled = t.processedAt === undefined ? '' : ` AND o.${ident(t.processedAt)} IS NULL`;
  return (
    ` AND (q.${g} IS NULL OR NOT EXISTS (SELECT 1 FROM ${tableName(t.table)} AS o` +
    ` WHERE o.${g} = q.${g} AND o.${id} < q.${id}${unsettled}))`
  );
}

/** Claim order over `alias`: the highest priority first, then id (R-FLOW-1); id alone without one. */
export function claimOrder(t: AnyTable, alias: string): string {
  const id = col(alias, t.id.column);
  return t.priority === undefined ? id : `${col(alias, t.priority)} DESC, ${id}`;
}

/** The ids of up to `n` claimable rows in claim order (the subquery of a claim). */
function claimable(t: AnyTable, scope: Scope, p: Params, now: Date | null, n: number, extra = ''): string {
  const id = ident(t.id.column);
  return (
    `SELECT q.${id} FROM ${tableName(t.table)} AS q WHERE ${due(t, scope, p, now, 'q.')}${head(t)}${extra}` +
    ` ORDER BY ${claimOrder(t, 'q.')} LIMIT ${p.bind(n)}`
  );
}

/** Lease claim: one `UPDATE .. RETURNING` stamps the lease and counts the attempt. */
export function claimLease(t: AnyTable, scope: Scope, n: number, now: Date, expiry: Date): Statement {
  const p = new Params();
  const sets = [`${ident(leaseOf(t))} = ${p.bind(expiry)}`];
  if (t.attempt !== undefined) sets.push(`${ident(t.attempt.column)} = ${ident(t.attempt.column)} + 1`);
  const sql =
    `UPDATE ${tableName(t.table)} SET ${sets.join(', ')}` +
    ` WHERE ${ident(t.id.column)} IN (${claimable(t, scope, p, now, n)}) RETURNING *`;
  return p.statement(sql);
}

/** Moves the leases that still hold their tokens to `expiry`, at most `MAX_PARAMS / 2` per statement. */
export function extendLeases(
  t: AnyTable,
  leases: readonly { id: unknown; token: Date }[],
  expiry: Date,
): Statement[] {
  const out: Statement[] = [];
  const per = Math.floor(MAX_PARAMS / 2);
  for (let i = 0; i < leases.length; i += per) {
    const p = new Params();
    const lease = ident(leaseOf(t));
    const set = `${lease} = ${p.bind(expiry)}`;
    const pairs = leases
      .slice(i, i + per)
      .map((l) => `(${p.bind(l.id)}, ${p.bind(l.token)})`)
      .join(', ');
    const id = ident(t.id.column);
    out.push(
      p.statement(
        `UPDATE ${tableName(t.table)} SET ${set} WHERE (${id}, ${lease}) IN (VALUES ${pairs}) RETURNING ${id}`,
      ),
    );
  }
  return out;
}

/**
 * Many lease-form acks: deletes (or stamps) the rows that still hold their tokens, at most
 * `MAX_PARAMS / 2` per statement, each answering the ids it changed.
 */
export function settleMany(t: AnyTable, settlements: readonly FinishSettlement[]): Statement[] {
  const out: Statement[] = [];
  const per = Math.floor((MAX_PARAMS - 1) / 2);
  const id = ident(t.id.column);
  const lease = ident(leaseOf(t));
  for (let i = 0; i < settlements.length; i += per) {
    const p = new Params();
    const chunk = settlements.slice(i, i + per);
    const set =
      t.processedAt === undefined
        ? undefined
        : `${ident(t.processedAt)} = ${p.bind(chunk[0]!.now)}, ${lease} = NULL`;
    const pairs = chunk.map((s) => `(${p.bind(s.id)}, ${p.bind(s.token)})`).join(', ');
    const where = `(${id}, ${lease}) IN (VALUES ${pairs})`;
    out.push(
      p.statement(
        set === undefined
          ? `DELETE FROM ${tableName(t.table)} WHERE ${where} RETURNING ${id}`
          : `UPDATE ${tableName(t.table)} SET ${set} WHERE ${where} RETURNING ${id}`,
      ),
    );
  }
  return out;
}

/**
 * A row's advisory key as text, as core's `keyOf()` renders it: literal text, then each column's
 * text, NULL as ''. A whole REAL renders without its `.0`, as JavaScript's `String()` does.
 */
function keyExpr(t: AnyTable, p: Params, alias: string): string {
  const parts = (t.key ?? []).map((part) => {
    if ('literal' in part) return `CAST(${p.bind(part.literal)} AS TEXT)`;
    const c = col(alias, part.column);
    return (
      `(CASE WHEN typeof(${c}) = 'real' AND ${c} = CAST(${c} AS INTEGER)` +
      ` THEN CAST(CAST(${c} AS INTEGER) AS TEXT) ELSE COALESCE(CAST(${c} AS TEXT), '') END)`
    );
  });
  return parts.length === 0 ? "''" : parts.join(' || ');
}

/**
 * Advisory candidates: the first `n` due rows (FIFO: heads) with their keys, leaving out the keys
 * this process's deliveries hold. The select cannot see other keys in work (R-DB-3).
 */
export function candidates(
  t: AnyTable,
  scope: Scope,
  n: number,
  now: Date | null,
  own: ReadonlySet<string>,
): Statement {
  const p = new Params();
  const id = ident(t.id.column);
  // Written in text order: the key's literals, the due condition's instants, the own keys, the limit.
  const key = keyExpr(t, p, 'q.');
  const where = due(t, scope, p, now, 'q.') + head(t);
  const notOwn = own.size === 0 ? '' : ` AND ${keyExpr(t, p, 'q.')} NOT IN (${p.list(own)})`;
  const sql =
    `SELECT q.${id} AS "id", ${key} AS "key" FROM ${tableName(t.table)} AS q` +
    ` WHERE ${where}${notOwn} ORDER BY ${claimOrder(t, 'q.')} LIMIT ${p.bind(n)}`;
  return p.statement(sql);
}

/**
 * Advisory take: counts the attempt of the row while it is still due and (FIFO) still its group's
 * head, and returns it. An older row of the group that appeared or came back unsettled since the
 * candidate select holds it back (R-OPS-7).
 */
export function take(t: AnyTable, scope: Scope, id: unknown, now: Date | null): Statement {
  const p = new Params();
  const table = tableName(t.table);
  const where = `q.${ident(t.id.column)} = ${p.bind(id)} AND ${due(t, scope, p, now, 'q.')}${head(t)}`;
  if (t.attempt === undefined) return p.statement(`SELECT q.* FROM ${table} AS q WHERE ${where}`);
  const a = ident(t.attempt.column);
  return p.statement(`UPDATE ${table} AS q SET ${a} = ${a} + 1 WHERE ${where} RETURNING *`);
}

/** `id = ?` and, with a lease token, `locked_until = token` (R-LEASE-3). */
function owned(t: AnyTable, p: Params, id: unknown, token: Date | undefined): string {
  const byId = `${ident(t.id.column)} = ${p.bind(id)}`;
  return token === undefined ? byId : `${byId} AND ${ident(leaseOf(t))} = ${p.bind(token)}`;
}

/**
 * A settlement in one statement: finish, return, or the move to the dead-letter group. (The move
 * to a dead-letter table is {@link moveToDeadLetter}.) A return with nothing to set answers a
 * select of the row, so its count still says whether the row (and its lease) was there.
 */
export function settle(t: AnyTable, s: Settlement): Statement {
  const p = new Params();
  const table = tableName(t.table);
  if (s.kind === 'finish' && t.processedAt === undefined) {
    return p.statement(`DELETE FROM ${table} WHERE ${owned(t, p, s.id, s.token)}`);
  }
  const sets = settlementSets(t, s, p);
  const where = owned(t, p, s.id, s.token);
  if (sets.length === 0) return p.statement(`SELECT 1 FROM ${table} WHERE ${where}`);
  return p.statement(`UPDATE ${table} SET ${sets.join(', ')} WHERE ${where}`);
}

function settlementSets(t: AnyTable, s: Settlement, p: Params): string[] {
  const sets: string[] = [];
  const clearLease = () => t.lease !== undefined && sets.push(`${ident(t.lease)} = NULL`);
  if (s.kind === 'finish') {
    sets.push(`${ident(t.processedAt!)} = ${p.bind(s.now)}`);
    clearLease();
  } else if (s.kind === 'return') {
    if (s.countAttempt && t.attempt !== undefined) {
      sets.push(`${ident(t.attempt.column)} = ${ident(t.attempt.column)} + 1`);
    }
    if (s.retryAfter !== undefined && t.retryAfter !== undefined) {
      sets.push(`${ident(t.retryAfter)} = ${p.bind(s.retryAfter)}`);
    }
    if (s.clearLease) clearLease();
  } else {
    if (!('group' in s.target)) throw new Error('a dead-letter table move takes moveToDeadLetter');
    sets.push(`${ident(groupOf(t))} = ${p.bind(s.target.group)}`);
    clearLease();
  }
  return sets;
}

/**
 * The move to a dead-letter table of the same columns: a copy, then a delete under the same
 * condition. The caller runs both in one transaction.
 */
export function moveToDeadLetter(
  t: AnyTable,
  deadTable: string,
  id: unknown,
  token: Date | undefined,
): [copy: Statement, remove: Statement] {
  const copy = new Params();
  const remove = new Params();
  const table = tableName(t.table);
  return [
    copy.statement(
      `INSERT INTO ${tableName(deadTable)} SELECT * FROM ${table} WHERE ${owned(t, copy, id, token)}`,
    ),
    remove.statement(`DELETE FROM ${table} WHERE ${owned(t, remove, id, token)}`),
  ];
}

/** One column an insert writes, and its value for a message. */
interface InsertColumn {
  readonly name: string;
  readonly value: (m: Insert) => unknown;
}

/**
 * Multi-row inserts, as few statements as the parameter limit allows, each answering the new ids.
 * Columns are the union over the messages; a message without a value writes NULL there.
 */
export function insert(t: AnyTable, messages: readonly Insert[], onConflict = ''): Statement[] {
  const columns = insertColumns(t, messages);
  const table = tableName(t.table);
  const returning = `${onConflict} RETURNING ${ident(t.id.column)}`;
  if (columns.length === 0)
    return messages.map(() => ({ sql: `INSERT INTO ${table} DEFAULT VALUES${returning}`, params: [] }));
  const names = columns.map((c) => ident(c.name)).join(', ');
  const per = Math.max(1, Math.floor(MAX_PARAMS / columns.length));
  const out: Statement[] = [];
  for (let i = 0; i < messages.length; i += per) {
    const p = new Params();
    const rows = messages
      .slice(i, i + per)
      .map((m) => `(${p.list(columns.map((c) => c.value(m)))})`)
      .join(', ');
    out.push(p.statement(`INSERT INTO ${table} (${names}) VALUES ${rows}${returning}`));
  }
  return out;
}

function insertColumns(t: AnyTable, messages: readonly Insert[]): InsertColumn[] {
  const out: InsertColumn[] = [];
  const add = (name: string, value: (m: Insert) => unknown) => {
    if (!out.some((c) => c.name === name)) out.push({ name, value });
  };
  const any = (f: (m: Insert) => unknown) => messages.some((m) => f(m) !== undefined);
  if (!t.id.generated) add(t.id.column, (m) => m.columns?.[t.id.column]);
  if (t.payload !== undefined) add(t.payload.column, (m) => m.payload);
  if (t.attempt !== undefined && !t.attempt.generated) add(t.attempt.column, () => 1);
  if (any((m) => m.group)) add(groupOf(t), (m) => m.group);
  if (any((m) => m.partitionKey)) add(roleColumn(t, t.partitionKey, 'partitionKey'), (m) => m.partitionKey);
  if (any((m) => m.notBefore)) add(roleColumn(t, t.retryAfter, 'retryAfter'), (m) => m.notBefore);
  if (any((m) => m.priority)) add(roleColumn(t, t.priority, 'priority'), (m) => m.priority);
  if (any((m) => m.key)) add(roleColumn(t, t.uniqueKey, 'uniqueKey'), (m) => m.key);
  for (const m of messages) {
    for (const name of Object.keys(m.columns ?? {})) add(name, (x) => x.columns?.[name]);
  }
  return out;
}

/**
 * A keyed insert of one message (R-FLOW-2): `INSERT .. ON CONFLICT (key) WHERE processed_at IS
 * NULL DO NOTHING RETURNING id`, which the table's partial unique index decides; no row back means
 * an unsettled row holds the key, and {@link keyHolder} reads its id.
 */
export function insertKeyed(t: AnyTable, m: Insert): Statement {
  const where = t.processedAt === undefined ? '' : ` WHERE ${ident(t.processedAt)} IS NULL`;
  const [st] = insert(
    t,
    [m],
    ` ON CONFLICT (${ident(roleColumn(t, t.uniqueKey, 'uniqueKey'))})${where} DO NOTHING`,
  );
  return st!;
}

/** The id of the unsettled row that holds a unique key. */
export function keyHolder(t: AnyTable, key: string): Statement {
  const p = new Params();
  const unsettled = t.processedAt === undefined ? '' : ` AND ${ident(t.processedAt)} IS NULL`;
  return p.statement(
    `SELECT ${ident(t.id.column)} FROM ${tableName(t.table)}` +
      ` WHERE ${ident(roleColumn(t, t.uniqueKey, 'uniqueKey'))} = ${p.bind(key)}${unsettled}`,
  );
}

/**
 * Queue counts by state, in one select: in work (an unexpired lease), delayed (a future
 * `retry_after`, not in work), ready (due now), dead (the dead-letter group's or table's rows).
 * Each expression binds its own values, written in the order they appear in the text.
 */
export function stats(t: AnyTable, scope: Scope, deadTable: string | undefined, now: Date): Statement {
  const p = new Params();
  const later = (column: string | undefined) =>
    column === undefined ? '0' : `(${ident(column)} IS NOT NULL AND ${ident(column)} > ${p.bind(now)})`;
  const sum = (cond: string) => `COALESCE(SUM(CASE WHEN ${cond} THEN 1 ELSE 0 END), 0)`;
  const inWork = sum(`${liveRow(t, scope, p)} AND ${later(t.lease)}`);
  const delayed = sum(`${liveRow(t, scope, p)} AND NOT ${later(t.lease)} AND ${later(t.retryAfter)}`);
  const ready = sum(due(t, scope, p, now));
  const dead =
    deadTable !== undefined
      ? `(SELECT COUNT(*) FROM ${tableName(deadTable)})`
      : scope.deadGroup !== undefined && t.group !== undefined
        ? sum(`${ident(t.group)} = ${p.bind(scope.deadGroup)}`)
        : '0';
  return p.statement(
    `SELECT ${inWork} AS in_work, ${delayed} AS delayed, ${ready} AS ready, ${dead} AS dead FROM ${tableName(t.table)}`,
  );
}

/** Unsettled and out of the dead-letter group. */
function liveRow(t: AnyTable, scope: Scope, p: Params): string {
  const parts: string[] = [];
  if (t.processedAt !== undefined) parts.push(`${ident(t.processedAt)} IS NULL`);
  if (t.group !== undefined && scope.deadGroup !== undefined) {
    parts.push(`${ident(t.group)} IS NOT ${p.bind(scope.deadGroup)}`);
  }
  return parts.length === 0 ? '1' : parts.join(' AND ');
}

function leaseOf(t: AnyTable): string {
  return roleColumn(t, t.lease, 'lease');
}

function groupOf(t: AnyTable): string {
  return roleColumn(t, t.group, 'group');
}

/** A role's column, or a ConfigError saying the description lacks it. */
function roleColumn(t: AnyTable, column: string | undefined, role: string): string {
  if (column !== undefined) return column;
  throw new ConfigError(`the description names no ${role} column`, {
    table: t.table,
    fix: `describe the ${role} column`,
  });
}

// ---------------------------------------------------------------------------------------------
// Admin (R-ADM-1, R-ADM-2, R-ADM-3). SQLite has one writer at a time: the admin API's changes run
// in a `BEGIN IMMEDIATE` transaction, so no claim runs between its read and its write.

/** The state of a row as SQL sees it, as a CASE expression over `alias`. */
function adminState(t: AnyTable, scope: Scope, p: Params, now: Date, alias: string): string {
  const when: string[] = [];
  if (t.group !== undefined && scope.deadGroup !== undefined)
    when.push(`WHEN ${col(alias, t.group)} = ${p.bind(scope.deadGroup)} THEN 'dead'`);
  if (t.processedAt !== undefined) when.push(`WHEN ${col(alias, t.processedAt)} IS NOT NULL THEN 'done'`);
  if (t.lease !== undefined) when.push(`WHEN ${col(alias, t.lease)} > ${p.bind(now)} THEN 'inWork'`);
  if (t.retryAfter !== undefined)
    when.push(`WHEN ${col(alias, t.retryAfter)} > ${p.bind(now)} THEN 'delayed'`);
  return when.length === 0 ? `'ready'` : `CASE ${when.join(' ')} ELSE 'ready' END`;
}

/** Admin list: rows of one state in id order after `after`, each with `sqlinbox_state`. */
export function adminList(
  t: AnyTable,
  scope: Scope,
  deadTable: string | undefined,
  q: { state: string; after?: unknown; limit: number; ids?: readonly unknown[] | undefined; now: Date },
): Statement {
  const p = new Params();
  const id = ident(t.id.column);
  const source =
    q.state === 'dead' && deadTable !== undefined
      ? `SELECT r.*, 'dead' AS sqlinbox_state FROM ${tableName(deadTable)} AS r`
      : `SELECT r.*, ${adminState(t, scope, p, q.now, 'r.')} AS sqlinbox_state FROM ${tableName(t.table)} AS r`;
  const where: string[] = [];
  if (q.state !== 'all') where.push(`x.sqlinbox_state = ${p.bind(q.state)}`);
  if (q.after !== undefined) where.push(`x.${id} > ${p.bind(q.after)}`);
  if (q.ids !== undefined) where.push(`x.${id} IN (${p.list(q.ids)})`);
  return p.statement(
    `SELECT x.* FROM (${source}) AS x${where.length ? ` WHERE ${where.join(' AND ')}` : ''}` +
      ` ORDER BY x.${id} LIMIT ${p.bind(q.limit)}`,
  );
}

/** Admin pick: dead rows, or live ones whose lease is absent or ended; by ids and group. */
export function adminPick(
  t: AnyTable,
  scope: Scope,
  deadTable: string | undefined,
  q: { dead: boolean; ids?: readonly unknown[] | undefined; group?: string | undefined; now: Date },
): Statement | null {
  const p = new Params();
  const where: string[] = [];
  let from = tableName(t.table);
  if (q.dead && deadTable !== undefined) from = tableName(deadTable);
  else if (q.dead) {
    if (t.group === undefined || scope.deadGroup === undefined) return null;
    where.push(`r.${ident(t.group)} = ${p.bind(q.group ?? scope.deadGroup)}`);
    if (t.processedAt !== undefined) where.push(`r.${ident(t.processedAt)} IS NULL`);
  } else {
    if (t.processedAt !== undefined) where.push(`r.${ident(t.processedAt)} IS NULL`);
    if (t.group !== undefined && scope.deadGroup !== undefined)
      where.push(`r.${ident(t.group)} IS NOT ${p.bind(scope.deadGroup)}`);
    if (t.lease !== undefined) {
      const c = `r.${ident(t.lease)}`;
      where.push(`(${c} IS NULL OR ${c} <= ${p.bind(q.now)})`);
    }
  }
  if (q.group !== undefined && !(q.dead && deadTable === undefined)) {
    if (t.group === undefined) return null;
    where.push(`r.${ident(t.group)} = ${p.bind(q.group)}`);
  }
  if (q.ids !== undefined) where.push(`r.${ident(t.id.column)} IN (${p.list(q.ids)})`);
  return p.statement(
    `SELECT r.* FROM ${from} AS r${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY r.${ident(t.id.column)}`,
  );
}

/** `attempt = 1, retry_after = NULL, lease = NULL`, and the group when given, by id. */
export function adminFresh(
  t: AnyTable,
  ids: readonly unknown[],
  group: { value: string | null } | undefined,
): Statement | null {
  const p = new Params();
  const set: string[] = [];
  if (t.attempt !== undefined) set.push(`${ident(t.attempt.column)} = 1`);
  if (t.retryAfter !== undefined) set.push(`${ident(t.retryAfter)} = NULL`);
  if (t.lease !== undefined) set.push(`${ident(t.lease)} = NULL`);
  if (group !== undefined && t.group !== undefined) set.push(`${ident(t.group)} = ${p.bind(group.value)}`);
  if (set.length === 0) return null;
  return p.statement(
    `UPDATE ${tableName(t.table)} SET ${set.join(', ')} WHERE ${ident(t.id.column)} IN (${p.list(ids)})`,
  );
}

/** Copies dead-letter table rows back into the queue table (deleted from it after). */
export function adminCopyBack(t: AnyTable, deadTable: string, ids: readonly unknown[]): Statement {
  const p = new Params();
  return p.statement(
    `INSERT INTO ${tableName(t.table)} SELECT * FROM ${tableName(deadTable)} WHERE ${ident(t.id.column)} IN (${p.list(ids)})`,
  );
}

/** Deletes rows by id from `table`. */
export function adminRemove(t: AnyTable, table: string, ids: readonly unknown[]): Statement {
  const p = new Params();
  return p.statement(`DELETE FROM ${tableName(table)} WHERE ${ident(t.id.column)} IN (${p.list(ids)})`);
}

/** `retry_after = at` by id. */
export function adminReschedule(t: AnyTable, ids: readonly unknown[], at: Date): Statement {
  const p = new Params();
  const ra = roleColumn(t, t.retryAfter, 'retryAfter');
  return p.statement(
    `UPDATE ${tableName(t.table)} SET ${ident(ra)} = ${p.bind(at)} WHERE ${ident(t.id.column)} IN (${p.list(ids)})`,
  );
}

/** The oldest `retry_after` among due rows, and the keys of the due rows (advisory form). */
export function adminDue(t: AnyTable, scope: Scope, now: Date): Statement {
  const p = new Params();
  const key = t.key === undefined ? 'NULL' : keyExpr(t, p, 'q.');
  const ra = t.retryAfter === undefined ? 'NULL' : `q.${ident(t.retryAfter)}`;
  return p.statement(
    `SELECT ${key} AS "key", ${ra} AS "due_at" FROM ${tableName(t.table)} AS q WHERE ${due(t, scope, p, now, 'q.')}`,
  );
}
