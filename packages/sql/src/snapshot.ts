import { createHash } from 'node:crypto';
import { type AnyTable, type DdlOptions, inbox, type PrepareOptions } from '@sqlinbox/core';
import type { SqlDialect } from './dialect.js';
import type { Statement } from './params.js';
import type { QueueStatements } from './statements.js';

/**
 * The statements a dialect sends, rendered for a fixed set of table descriptions into one text a
 * test compares with a committed file (vitest's `toMatchFileSnapshot`): a reviewer sees every
 * change to a statement, and can put one claim of every database side by side. Each statement
 * gets a header (the description, the statement, its bound values, and a fingerprint of its exact
 * text, so a change of spacing alone still shows), then its text, formatted where a formatter is
 * given.
 */

/** The instant every rendered statement takes as now. */
export const SNAPSHOT_NOW = new Date('2025-01-01T00:00:00.000Z');
/** The lease expiry (and later instants) the rendered statements take. */
export const SNAPSHOT_LATER = new Date('2025-01-01T00:00:30.000Z');

const now = SNAPSHOT_NOW;
const later = SNAPSHOT_LATER;

/** One description of the fixed set, and how its statements are prepared. */
export interface SnapshotCase {
  /** What it shows, e.g. `lease, FIFO`. */
  readonly name: string;
  /** The table description. */
  readonly table: AnyTable;
  /** How its statements are prepared (dead letter, skipped ids). */
  readonly prepare?: PrepareOptions;
  /** What `ddl()` prints beside the table. */
  readonly ddl?: DdlOptions;
}

const base = { id: { column: 'id', generated: true }, payload: 'payload', attempt: 'attempt' } as const;

/**
 * The fixed descriptions: each claim form; FIFO in each; priority; a unique key; per-key
 * concurrency; a rate limit; a schedule's tick table; `processed_at` with skipped ids (a relay);
 * a dead-letter group and a dead-letter table; the database clock; the failure record, with a
 * dead-letter table and with a group.
 */
export function snapshotCases(): SnapshotCase[] {
  return [
    { name: 'row lock', table: inbox({ table: 'jobs', ...base, retryAfter: 'retry_after' }) },
    {
      name: 'row lock, database clock',
      table: inbox({ table: 'jobs', ...base, retryAfter: 'retry_after', clock: 'database' }),
    },
    {
      name: 'lease',
      table: inbox({ table: 'jobs', ...base, lease: 'locked_until', retryAfter: 'retry_after' }),
    },
    {
      name: 'advisory',
      table: inbox({
        table: 'jobs',
        ...base,
        advisory: 'account-{account}',
        retryAfter: 'retry_after',
        columns: ['account'],
      }),
    },
    { name: 'row lock, FIFO', table: inbox({ table: 'jobs', ...base, group: 'fifo_group' }) },
    {
      name: 'lease, FIFO',
      table: inbox({ table: 'jobs', ...base, lease: 'locked_until', group: 'fifo_group' }),
    },
    {
      name: 'advisory, FIFO',
      table: inbox({
        table: 'jobs',
        ...base,
        advisory: 'k-{account}',
        group: 'fifo_group',
        columns: ['account'],
      }),
    },
    {
      name: 'lease, priority',
      table: inbox({ table: 'jobs', ...base, lease: 'locked_until', priority: 'priority' }),
    },
    {
      name: 'lease, unique key, processed_at',
      table: inbox({
        table: 'jobs',
        ...base,
        lease: 'locked_until',
        uniqueKey: 'unique_key',
        processedAt: 'processed_at',
      }),
    },
    {
      name: 'lease, per-key concurrency',
      table: inbox({
        table: 'jobs',
        ...base,
        lease: 'locked_until',
        concurrency: { key: 'account', limit: 2 },
      }),
    },
    {
      name: 'lease, rate limit, schedules, control, steps',
      table: inbox({
        table: 'jobs',
        ...base,
        lease: 'locked_until',
        rateLimit: { max: 50, per: '1s' },
        control: true,
        steps: true,
      }),
      ddl: { schedules: 'sqlinbox_schedules' },
    },
    {
      name: 'lease, flows',
      table: inbox({ table: 'jobs', ...base, lease: 'locked_until', retryAfter: 'retry_after', flows: true }),
    },
    {
      name: 'row lock, processed_at, skipped ids (a relay)',
      table: inbox({ table: 'outbox', ...base, processedAt: 'relayed_at' }),
      prepare: { exclude: new Set([3, 5, 8]) },
    },
    {
      name: 'lease, processed_at, skipped ids (a relay)',
      table: inbox({ table: 'outbox', ...base, lease: 'locked_until', processedAt: 'relayed_at' }),
      prepare: { exclude: new Set([3, 5, 8]) },
    },
    {
      name: 'lease, dead-letter group',
      table: inbox({
        table: 'jobs',
        ...base,
        lease: 'locked_until',
        retryAfter: 'retry_after',
        group: 'fifo_group',
      }),
      prepare: { deadLetter: { group: 'dead' } },
    },
    {
      name: 'row lock, dead-letter table, schema-qualified',
      table: inbox({ table: 'app.jobs', ...base, retryAfter: 'retry_after', processedAt: 'processed_at' }),
      prepare: { deadLetter: { table: 'app.jobs_dead' } },
      ddl: { deadLetterTable: 'app.jobs_dead' },
    },
    {
      name: 'lease, retention, dead-letter group',
      table: inbox({
        table: 'jobs',
        ...base,
        lease: 'locked_until',
        retryAfter: 'retry_after',
        processedAt: 'processed_at',
        group: 'fifo_group',
        retention: { processed: '7d', dead: '30d', deadAt: 'dead_at' },
      }),
      prepare: { deadLetter: { group: 'dead' } },
    },
    {
      name: 'row lock, retention, dead-letter table',
      table: inbox({
        table: 'jobs',
        ...base,
        retryAfter: 'retry_after',
        retention: { dead: '30d', deadAt: 'dead_at', batchSize: 500 },
      }),
      prepare: { deadLetter: { table: 'jobs_dead' } },
      ddl: { deadLetterTable: 'jobs_dead' },
    },
    {
      name: 'advisory, dead-letter table',
      table: inbox({ table: 'jobs', ...base, advisory: 'account-{account}', columns: ['account'] }),
      prepare: { deadLetter: { table: 'jobs_dead' } },
      ddl: { deadLetterTable: 'jobs_dead' },
    },
    {
      name: 'lease, failure record, dead-letter table',
      table: inbox({ table: 'jobs', ...base, lease: 'locked_until', retryAfter: 'retry_after', ...record }),
      prepare: { deadLetter: { table: 'jobs_dead' } },
      ddl: { deadLetterTable: 'jobs_dead' },
    },
    {
      name: 'lease, processed_at, results, dead-letter table',
      table: inbox({
        table: 'jobs',
        ...base,
        lease: 'locked_until',
        processedAt: 'processed_at',
        result: 'result',
      }),
      prepare: { deadLetter: { table: 'jobs_dead' } },
      ddl: { deadLetterTable: 'jobs_dead' },
    },
    {
      name: 'row lock, failure record, dead-letter group',
      table: inbox({ table: 'jobs', ...base, group: 'fifo_group', ...record }),
      prepare: { deadLetter: { group: 'dead' } },
    },
  ];
}

/** The failure record's columns. */
const record = {
  lastError: 'last_error',
  errorClass: 'error_class',
  failedAt: 'failed_at',
  createdAt: 'created_at',
} as const;

/** The failure a snapshot's failed settlements write. */
const failure = { message: 'boom', name: 'TypeError' } as const;

/** What a statement renders from: one statement, several run in turn, plain SQL, or none. */
export type Rendered = Statement | readonly Statement[] | string | readonly string[] | null | undefined;

/** A named statement of one case. */
export type NamedStatement = readonly [name: string, statement: Rendered];

/** Options of {@link renderStatements}. */
export interface RenderOptions<S extends QueueStatements> {
  /** Formats a statement's text for reading (e.g. sql-formatter); default: the text as sent. */
  readonly format?: ((text: string) => string) | undefined;
  /** The dialect's own statements of a case, beside the builder's (its runner's extra statements). */
  readonly extra?: ((s: S, c: SnapshotCase) => readonly NamedStatement[]) | undefined;
  /** Statements of the dialect as a whole (transactions, version), beside the cases'. */
  readonly dialect?: readonly NamedStatement[] | undefined;
}

/** The builder's statements of one case, by name, in the order a reader meets them. */
export function builderStatements(s: QueueStatements, c: SnapshotCase): NamedStatement[] {
  const t = c.table;
  const dead = c.prepare?.deadLetter;
  const out: NamedStatement[] = [];
  const add = (name: string, st: () => Rendered) => {
    try {
      out.push([name, st()]);
    } catch (err) {
      out.push([`${name}: not sent here (${(err as Error).message})`, null]);
    }
  };
  if (t.form === 'rowlock') {
    add('claimLocked (n 10)', () => s.rowLock.claim(10, t.clock === 'database' ? null : now));
    if (t.group !== undefined) {
      add('headGuard (id 7, group g)', () => s.fifo.headGuard(7, 'g'));
      const heads = [
        { id: 7, group: 'g' },
        { id: 9, group: 'h' },
      ];
      add('headGuards (ids 7, 9, groups g, h)', () => s.fifo.headGuards(heads));
    }
  }
  if (t.form === 'lease') {
    add('claimLease (n 10)', () => s.lease.claim(10, now, later));
    if (t.concurrency !== undefined) {
      add('claimTurn', () => s.concurrency.turn());
      add('claimLeaseByKey (n 10)', () => s.concurrency.claim(10, now, later));
    }
    add('extendLeases (one token)', () =>
      s.lease.extendLeases(
        [
          { id: 1, token: now },
          { id: 2, token: now },
        ],
        later,
      ),
    );
    add('extendLeases (two tokens)', () =>
      s.lease.extendLeases(
        [
          { id: 1, token: now },
          { id: 2, token: later },
        ],
        later,
      ),
    );
    add('settleMany', () =>
      s.lease.settleMany([
        { kind: 'finish', id: 1, token: now, now },
        { kind: 'finish', id: 2, token: now, now },
      ]),
    );
    // Batched retries: values the rows share bound once, each row's own in a CASE.
    const retry = { kind: 'return', token: now, now, countAttempt: false, clearLease: true } as const;
    add('returnMany (retries)', () =>
      s.lease.returnMany([
        { ...retry, id: 1 },
        { ...retry, id: 2, token: later },
      ]),
    );
    if (t.lastError !== undefined) {
      add('returnMany (failures, each its own message)', () =>
        s.lease.returnMany([
          { ...retry, id: 1, failure: { message: 'one', name: 'TypeError' } },
          { ...retry, id: 2, failure: { message: 'two', name: 'TypeError' } },
        ]),
      );
      add('returnMany (failures, leases held until their backoffs end)', () =>
        s.lease.returnMany([
          { ...retry, id: 1, clearLease: false, holdUntil: later, failure },
          { ...retry, id: 2, clearLease: false, holdUntil: new Date(later.getTime() + 1), failure },
        ]),
      );
      add('settle retry (failure, lease held until the backoff ends)', () =>
        s.settle.settle({ ...retry, id: 7, clearLease: false, holdUntil: later, failure }),
      );
    }
  }
  if (t.form === 'advisory') {
    add('candidates (n 10)', () => s.advisory.candidates(10, t.clock === 'database' ? null : now, new Set()));
    add('candidates (n 10, two keys of its own)', () =>
      s.advisory.candidates(10, now, new Set(['k1', 'k2'])),
    );
    add('lock', () => s.advisory.lock('account-1'));
    add('unlock', () => s.advisory.unlock('account-1'));
    add('take (id 7)', () => s.advisory.take(7, now));
    if (s.advisory.locksAndTakes)
      add('lockAndTake (id 7)', () => s.advisory.lockAndTake('account-1', 7, now));
    add('heldKeys (two keys)', () => s.advisory.heldKeys(['k1', 'k2']));
  }
  const token = t.form === 'lease' ? { token: now } : {};
  // The row lock form counts the delivery at its settlement: its ack and its dead letter too.
  const counted = t.form === 'rowlock' ? { countAttempt: true } : {};
  add('settle ack', () => s.settle.settle({ kind: 'finish', id: 7, ...token, now, ...counted }));
  add('settle retry', () =>
    s.settle.settle({
      kind: 'return',
      id: 7,
      ...token,
      now,
      countAttempt: true,
      retryAfter: later,
      clearLease: true,
    }),
  );
  const records = t.lastError !== undefined;
  if (records)
    add('settle retry (failure)', () =>
      s.settle.settle({
        kind: 'return',
        id: 7,
        ...token,
        now,
        countAttempt: t.form === 'rowlock',
        clearLease: t.form === 'lease',
        failure,
      }),
    );
  if (t.form === 'lease')
    add('settle release (uncount)', () =>
      s.settle.settle({
        kind: 'return',
        id: 7,
        ...token,
        now,
        countAttempt: false,
        uncountAttempt: true,
        clearLease: true,
      }),
    );
  if (dead !== undefined && 'group' in dead)
    add('settle dead letter (group)', () =>
      s.settle.settle({
        kind: 'deadLetter',
        id: 7,
        ...token,
        now,
        target: dead,
        inTransaction: false,
        ...(records ? { failure } : {}),
        ...counted,
      }),
    );
  if (dead !== undefined && 'table' in dead && t.form === 'rowlock')
    add(
      'countBeforeMove',
      () =>
        s.settle.countBeforeMove({
          kind: 'deadLetter',
          id: 7,
          now,
          target: dead,
          inTransaction: true,
          ...counted,
        })!,
    );
  if (dead !== undefined && 'table' in dead)
    add('moveToDeadLetter', () =>
      s.settle.moveToDeadLetter(
        7,
        t.form === 'lease' ? now : undefined,
        dead.table,
        records ? { failure, now } : undefined,
      ),
    );
  const message = {
    payload: '{"n":1}',
    ...(t.group === undefined ? {} : { group: 'g' }),
    ...(t.retryAfter === undefined ? {} : { notBefore: later }),
    ...(t.priority === undefined ? {} : { priority: 3 }),
    ...(t.columns.includes('account') ? { columns: { account: 'a1' } } : {}),
  };
  add('insert (one message)', () => s.publish.insert([message]));
  add('insert (two messages, one without columns)', () =>
    s.publish.insert([message, { payload: '{"n":2}' }]),
  );
  if (t.uniqueKey !== undefined) {
    add('insertKeyed', () => s.publish.insertKeyed({ payload: '{"n":1}', key: 'k1' }));
    add('keyHolder', () => s.publish.keyHolder('k1'));
    if (t.attempt !== undefined)
      add('insertReplacing', () =>
        s.publish.insertReplacing({
          payload: '{"n":2}',
          key: 'k1',
          replace: true,
          ...(t.retryAfter === undefined ? {} : { notBefore: later }),
        }),
      );
  }
  add('stats', () => s.counts.stats(now));
  add('dueRows', () => s.counts.dueRows(now));
  add('lockable', () => s.counts.lockable(now));
  add('admin list (ready, after 3)', () => s.admin.list({ state: 'ready', after: 3, limit: 50, now }));
  add('admin list (dead, ids)', () => s.admin.list({ state: 'dead', limit: 50, ids: [4, 5], now }));
  add('admin pick (live, ids)', () => s.admin.pick({ dead: false, ids: [4, 5], now }));
  add('admin pick (dead)', () => s.admin.pick({ dead: true, now }));
  add('admin fresh (to group g)', () => s.admin.fresh([4, 5], { value: 'g' }));
  if (dead !== undefined && 'table' in dead) {
    add('admin copyBack', () => s.admin.copyBack([4, 5]));
    add('admin remove (dead)', () => s.admin.remove([4, 5], true));
  }
  add('admin remove', () => s.admin.remove([4, 5], false));
  add('admin reschedule', () => s.admin.reschedule([4, 5], later));
  if (c.ddl?.schedules !== undefined) {
    const ticks = c.ddl.schedules;
    add('schedules recordTick', () => s.schedules.recordTick(ticks, 'nightly', now));
    add('schedules lastTick', () => s.schedules.lastTick(ticks, 'nightly'));
    add('schedules pruneTicks', () => s.schedules.pruneTicks(ticks, 'nightly', now));
  }
  const keep = t.retention;
  if (keep !== undefined) {
    if (keep.processedMs !== undefined)
      add('retention pruneProcessed', () => s.retention.pruneProcessed(now, keep.batchSize));
    add('retention markDead', () => s.retention.markDead(now));
    add('retention pruneDead', () => s.retention.pruneDead(now, keep.batchSize));
  }
  const rate = t.rateLimit;
  if (rate !== undefined) {
    add('rates rateRow', () => s.rates.rateRow(rate.table, rate.name));
    add('rates reserveRate', () => s.rates.reserveRate(rate.table, rate.name, 10, rate.max, rate.perMs));
    add('rates returnRate', () => s.rates.returnRate(rate.table, rate.name, 1_735_689_600_000, 4));
    add('rates rateState', () => s.rates.rateState(rate.table, rate.name));
  }
  const control = t.control;
  if (control !== undefined) {
    const row = { queue: control.name, kind: 'pause_group', target: 'acme' };
    add('control readControl', () => s.control.readControl(control.table, [control.name]));
    add('control writeControl', () => s.control.writeControl(control.table, row));
    add('control writeControl cancel', () =>
      s.control.writeControl(control.table, {
        queue: control.name,
        kind: 'cancel',
        target: '41',
        reason: 'withdrawn',
      }),
    );
    add('control deleteControl', () => s.control.deleteControl(control.table, row));
    add('control sweepCancels', () => s.control.sweepCancels(control.table, control.name, ['41', '42']));
  }
  const flows = t.flows;
  if (flows !== undefined) {
    add('flows insertParent', () => s.flows.insertParent(flows, '7', 2, 'dead'));
    add('flows insertEdge', () => s.flows.insertEdge(flows, '7', '5', 'charge'));
    add('flows pendingEdges', () => s.flows.pendingEdges(flows, undefined, 500));
    add('flows pendingEdges of children', () => s.flows.pendingEdges(flows, ['5', '6'], 500));
    add('flows pendingEdges after a cursor', () => s.flows.pendingEdges(flows, undefined, 500, '42'));
    add('flows settleEdge', () => s.flows.settleEdge(flows, '7', '5', 'dead', 'boom'));
    add('flows settleEdges', () => s.flows.settleEdges(flows, '7', ['5', '6']));
    add('flows countDown', () => s.flows.countDown(flows, '7', true));
    add('flows countDown by 3', () => s.flows.countDown(flows, '7', false, 3));
    add('flows markWoken', () => s.flows.markWoken(flows, '7'));
    add('flows edgesBy', () => s.flows.edgesBy(flows, 'parent_id', ['7']));
    add('flows parentsOf', () => s.flows.parentsOf(flows, ['7']));
    add('flows settledEdges', () => s.flows.settledEdges(flows, 1000));
    add('flows settledEdges after a cursor', () =>
      s.flows.settledEdges(flows, 1000, { child: '5', parent: '7' }),
    );
    add('flows deleteEdges', () =>
      s.flows.deleteEdges(flows, [
        { child: '5', parent: '7' },
        { child: '6', parent: '7' },
      ]),
    );
    add('flows settledParents', () => s.flows.settledParents(flows, 1000));
    add('flows settledParents after a cursor', () => s.flows.settledParents(flows, 1000, '7'));
    add('flows deleteParents', () => s.flows.deleteParents(flows, ['7', '8']));
  }
  const steps = t.steps;
  if (steps !== undefined) {
    const key = { table: steps.table, queue: steps.name, rowId: '41' };
    add('steps readSteps', () => s.steps.readSteps(key));
    add('steps writeStep', () => s.steps.writeStep(key, 'charge card', '{"value":{"charge":"ch_1"}}'));
    add('steps deleteSteps', () => s.steps.deleteSteps(steps.table, steps.name, ['41', '42']));
    add('steps stepRows', () => s.steps.stepRows(steps.table, steps.name, 500));
    add('steps stepRows after a cursor', () => s.steps.stepRows(steps.table, steps.name, 500, '41'));
    add('steps deleteStepsUpTo', () =>
      s.steps.deleteStepsUpTo(steps.table, steps.name, [
        { rowId: '41', lastMs: '1735689600000' },
        { rowId: '42', lastMs: '1735689600500' },
      ]),
    );
  }
  return out;
}

/** The transaction statements of a dialect, for the header section. */
export function transactionStatements(d: SqlDialect): NamedStatement[] {
  const tx = d.transactions;
  const out: NamedStatement[] = [];
  const tryBegin = (name: string, opts: Parameters<typeof tx.begin>[0]) => {
    try {
      out.push([name, tx.begin(opts)]);
    } catch (err) {
      out.push([`${name}: refused (${(err as Error).message})`, null]);
    }
  };
  tryBegin('begin', {});
  for (const level of d.capabilities.isolationLevels) tryBegin(`begin (${level})`, { isolation: level });
  for (const mode of d.capabilities.transactionModes) tryBegin(`begin (${mode})`, { mode });
  out.push(['commit', tx.commit], ['rollback', tx.rollback], ['savepoint', tx.savepoint('sqlinbox_step')]);
  out.push(['release savepoint', tx.releaseSavepoint?.('sqlinbox_step')]);
  out.push(['rollback to savepoint', tx.rollbackToSavepoint('sqlinbox_step')]);
  out.push(['version', d.versionSql]);
  return out;
}

const RULE = `-- ${'='.repeat(97)}`;

/** One statement's header and text. */
function renderOne(name: string, st: Statement | string, format: (text: string) => string): string {
  const raw = typeof st === 'string' ? st : st.sql;
  const params = typeof st === 'string' ? [] : st.params;
  const fingerprint = createHash('sha256').update(raw).digest('hex').slice(0, 16);
  const lines = [`-- ${name}`];
  if (params.length > 0) lines.push(`-- params: ${JSON.stringify(params, bigints)}`);
  lines.push(`-- text: ${raw.length} characters, sha256 ${fingerprint}`);
  let text: string;
  try {
    text = format(raw);
  } catch {
    text = raw;
  }
  return `${lines.join('\n')}\n${text.trimEnd()};\n`;
}

/** JSON of bound values: a bigint as its digits. */
function bigints(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}

/** Renders named statements (each of several in turn numbered). */
function renderAll(list: readonly NamedStatement[], format: (text: string) => string): string[] {
  const out: string[] = [];
  for (const [name, st] of list) {
    if (st === null || st === undefined) {
      out.push(`-- ${name}: none\n`);
      continue;
    }
    const many = Array.isArray(st) ? (st as readonly (Statement | string)[]) : [st as Statement | string];
    if (many.length === 0) out.push(`-- ${name}: none\n`);
    for (const [i, one] of many.entries())
      out.push(renderOne(many.length > 1 ? `${name}, ${i + 1} of ${many.length}` : name, one, format));
  }
  return out;
}

/**
 * Every statement `dialect` sends for the fixed descriptions ({@link snapshotCases}): its
 * transactions and version query, then per description its DDL, the builder's statements, and the
 * dialect's own (`opts.extra`).
 */
export function renderStatements<S extends QueueStatements>(
  dialect: SqlDialect,
  opts: RenderOptions<S> = {},
): string {
  const format = opts.format ?? ((text: string) => text);
  const parts = [
    `-- The statements the ${dialect.name} dialect sends, for the fixed descriptions of @sqlinbox/sql's snapshot.ts.`,
    '-- Written by the test beside this file: run it with -u after a change of a statement, and review the diff.',
    '',
    RULE,
    `-- ${dialect.name}: transactions and the version`,
    RULE,
    ...renderAll([...transactionStatements(dialect), ...(opts.dialect ?? [])], format),
  ];
  for (const c of snapshotCases().filter((x) => dialect.capabilities.forms.includes(x.table.form))) {
    const s = dialect.statements(c.table, c.prepare) as S;
    parts.push('', RULE, `-- ${c.name} (table ${c.table.table}, ${c.table.form} form)`, RULE);
    parts.push(...renderAll([['ddl', dialect.ddl(c.table, c.ddl)]], format));
    parts.push(...renderAll(builderStatements(s, c), format));
    if (opts.extra !== undefined) parts.push(...renderAll(opts.extra(s, c), format));
  }
  return `${parts.join('\n')}\n`;
}
