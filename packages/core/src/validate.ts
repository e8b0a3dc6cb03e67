import { type AnyTable, namedColumns } from './description.js';
import type { ColumnInfo, ColumnKind, Dialect } from './dialect.js';
import type { Connection, Pool } from './driver.js';
import { ConfigError } from './errors.js';
import type { QueueSettings } from './queue.js';

/**
 * Checks a subscription against the dialect's capabilities and the table as the database
 * describes it, before any row is claimed. The first problem found is thrown as one
 * `ConfigError` naming the table and the column, with the fix.
 */
export async function validateSubscription(
  dialect: Dialect,
  pool: Pool,
  conn: Connection,
  q: QueueSettings,
): Promise<void> {
  const t = q.table;
  const caps = dialect.capabilities;
  const table = t.table;
  const fail = (msg: string, extra: { column?: string; fix?: string } = {}): never => {
    throw new ConfigError(msg, { table, ...extra });
  };

  if (!caps.forms.includes(t.form)) {
    const why = caps.formsRefused?.[t.form];
    fail(`${dialect.name} does not take the ${t.form} form${why === undefined ? '' : `: ${why}`}`, {
      fix: `describe the table with one of: ${caps.forms.join(', ')}`,
    });
  }
  if (t.isolation !== undefined && !caps.isolationLevels.includes(t.isolation)) {
    fail(`${dialect.name} does not run isolation level ${t.isolation}`, {
      fix: caps.isolationLevels.length
        ? `declare one of: ${caps.isolationLevels.join(', ')}`
        : 'declare no level',
    });
  }
  if (t.mode !== undefined && !caps.transactionModes.includes(t.mode)) {
    fail(`${dialect.name} has no transaction mode ${t.mode}`, { fix: 'declare an isolation level instead' });
  }
  if (pool.size < 2) {
    fail(`the pool has ${pool.size} connection(s); sqlinbox keeps one free for handlers and settlements`, {
      fix: 'give the pool at least 2 connections',
    });
  }
  if (q.transactional && !caps.transactional) fail(`${dialect.name} has no transactional mode`);
  if (
    q.transactional &&
    t.form === 'lease' &&
    (t.isolation === 'repeatable_read' || t.isolation === 'serializable')
  ) {
    // Such a transaction sees the row as its first statement found it, not the lease extended since.
    fail(`a lease table in transactional mode cannot run at ${t.isolation}`, {
      fix: 'declare read_committed, or mount it without .transactional()',
    });
  }
  if (q.maxAttempts !== undefined && t.attempt === undefined) {
    fail('maxAttempts needs an attempt column', { fix: 'describe the attempt column' });
  }
  if (q.deadLetter !== undefined && 'group' in q.deadLetter && t.group === undefined) {
    fail('a dead-letter group needs a group column', {
      fix: 'describe the group column, or dead-letter to a table',
    });
  }
  if (q.batch !== undefined) {
    // Checked by the queue builder too; these catch settings put together past it.
    if (q.transactional)
      fail('a batch queue cannot be mounted transactional', { fix: 'drop .transactional()' });
    if (q.lanes !== undefined)
      fail('a batch queue has no partition lanes', { fix: 'use workers(n), or drop .batch()' });
    if (q.claimBatch !== undefined)
      fail('claimBatch has no effect on a batch queue: batch(n) is the claim size', {
        fix: 'drop .claimBatch()',
      });
  }
  if (q.prefetch !== undefined) {
    if (t.form !== 'lease')
      fail('prefetch is for the lease form: a row lock or an advisory lock is held per delivery', {
        fix: 'drop .prefetch()',
      });
    else if (!dialect.capabilities.claimAhead)
      fail(`prefetch needs a dialect that claims ahead; ${dialect.name} claims a row per free worker`, {
        fix: 'drop .prefetch()',
      });
    else if (q.transactional || q.batch !== undefined)
      fail('prefetch has no effect on a transactional or batch queue: each claim is what it hands out', {
        fix: 'drop .prefetch()',
      });
  }
  if (t.concurrency !== undefined) {
    const c = t.concurrency.column;
    if (t.form === 'rowlock') {
      fail(
        'per-key concurrency cannot be held in the row lock form: its rows in work are only visible as locks other transactions hold, which no claim can count per key',
        { column: c, fix: 'describe a lease column, or drop concurrency' },
      );
    }
    if (t.form === 'advisory') {
      fail(
        'per-key concurrency is not held in the advisory lock form: its rows in work are session locks on keys, which no claim counts per key',
        { column: c, fix: 'describe a lease column, or drop concurrency' },
      );
    }
    if (!(dialect.prepare(t).concurrency?.forms ?? []).includes(t.form)) {
      fail(`${dialect.name} does not hold per-key concurrency in the ${t.form} form`, {
        column: c,
        fix: 'drop concurrency from the description',
      });
    }
  }
  if (q.lanes !== undefined && t.partitionKey === undefined) {
    fail('workersByKey needs a partitionKey column', { fix: 'describe the partitionKey column' });
  }

  const columns = await checkTableShape(dialect, conn, t);
  // After the table and its columns: a missing table or column is the first thing to mend.
  checkAttemptLimit(q, fail);
  if (q.deadLetter !== undefined && 'table' in q.deadLetter) {
    const dlq = await dialect.describeTable(conn, q.deadLetter.table);
    if (dlq === null) {
      fail(`dead-letter table ${q.deadLetter.table} does not exist`, {
        fix: `create it with the queue table's columns; ddl(table, { deadLetterTable }) prints it`,
      });
      return;
    }
    const missing = columns.filter(
      (c) => !dlq.some((d: ColumnInfo) => d.name.toLowerCase() === c.name.toLowerCase()),
    );
    if (missing.length > 0) {
      fail(`dead-letter table ${q.deadLetter.table} lacks column ${missing[0]!.name}`, {
        column: missing[0]!.name,
        fix: 'give it the same columns as the queue table',
      });
    }
  }
}

/**
 * The table as the database describes it against its description: a missing table, a missing
 * column and a column of a type that cannot hold its role are each thrown as a `ConfigError` naming
 * the table and the column, with the fix. Answers the table's columns. Run by `start()` for every
 * subscription, and by a publish that failed, to say what of the table it failed on.
 */
export async function checkTableShape(
  dialect: Dialect,
  conn: Connection,
  t: AnyTable,
  /** Words before each message (`cannot publish: `), and the error that led to the check. */
  opts: { readonly prefix?: string; readonly cause?: unknown } = {},
): Promise<ColumnInfo[]> {
  const table = t.table;
  const caps = dialect.capabilities;
  const fail = (msg: string, extra: { column?: string; fix?: string } = {}): never => {
    throw new ConfigError(`${opts.prefix ?? ''}${msg}`, {
      table,
      ...extra,
      ...(opts.cause === undefined ? {} : { cause: opts.cause }),
    });
  };
  const found = await dialect.describeTable(conn, table);
  if (found === null)
    return fail('no such table', { fix: `create it; ${dialect.name}'s ddl() prints the CREATE TABLE` });
  const columns = found;
  const byName = new Map(columns.map((c) => [c.name.toLowerCase(), c]));
  for (const { column, role } of namedColumns(t)) {
    const info = byName.get(column.toLowerCase());
    if (info === undefined) {
      fail(`the ${role} column does not exist`, { column, fix: `add it, or correct the description` });
      continue;
    }
    const want = expectedKinds(role, t.payload?.type, caps.timeKinds);
    // A payload of a type the dialect does not know may still read back as text; an instant or
    // the attempt counter of such a type never works: a `date` lease rounds every token
    // away, a `boolean` one refuses every claim.
    const strict = role === 'attempt' || role === 'priority' || role === 'uniqueKey' || TIME_ROLES.has(role);
    if (want !== undefined && !want.includes(info.kind) && (strict || info.kind !== 'other')) {
      const fix = TIME_ROLES.has(role)
        ? `give it a type that holds an instant (${dialect.name}'s ddl() prints one)`
        : role === 'attempt' || role === 'priority'
          ? 'give it an integer type'
          : role === 'uniqueKey'
            ? 'give it a text type'
            : role === 'result'
              ? "give it a JSON or text type (the dialect's ddl() prints one)"
              : undefined;
      const holds = TIME_ROLES.has(role) ? ', which cannot hold an instant' : '';
      const is = info.type === '' ? 'has no declared type' : `is ${info.type}`;
      fail(`the ${role} column ${is}${holds}, expected ${want.join(' or ')}`, {
        column,
        ...(fix === undefined ? {} : { fix }),
      });
    }
    if (role === 'lease' && info.precision !== undefined && info.precision < 3) {
      // The lease is the claim's token, compared exactly by every settlement: a column
      // that rounds it loses every lease. retry_after and processed_at may round: a
      // retry then comes due up to half a second early or late, a stamp is a stamp.
      fail(
        `the lease column is ${info.type}, which keeps ${info.precision} digit(s) of a second: the lease ` +
          'is a token to the millisecond that every settlement compares exactly, so a column that rounds it loses every lease',
        {
          column,
          fix: `give it a type that keeps milliseconds or finer (${dialect.name}'s ddl() prints one)`,
        },
      );
    }
  }
  return columns;
}

/**
 * `maxAttempts` and `deadLetter` go together. A message that fails its last attempt must go
 * somewhere: sqlinbox never deletes it without a word (as the queues users come from keep a job
 * that failed for good, in a failed state), so the queue names the place; and a dead letter with no
 * limit would never receive anything.
 */
function checkAttemptLimit(
  q: QueueSettings,
  fail: (msg: string, extra?: { column?: string; fix?: string }) => never,
): void {
  const t = q.table;
  if (q.maxAttempts !== undefined && q.deadLetter === undefined) {
    fail(
      `maxAttempts(${q.maxAttempts}) is set without a dead letter: a message that fails its last attempt would have nowhere to go`,
      {
        fix:
          `add .deadLetter({ table: '${t.table.split('.').pop()}_dead' }) (ddl(table, { deadLetterTable }) prints it)` +
          `${t.group === undefined ? '' : " or .deadLetter({ group: 'dead' })"}, or drop .maxAttempts() to retry without limit`,
      },
    );
  }
  if (q.deadLetter !== undefined && q.maxAttempts === undefined) {
    fail('deadLetter is set without maxAttempts: no message would ever be moved there', {
      fix: 'add .maxAttempts(n), the attempts before a message is dead-lettered',
    });
  }
}

/** The roles whose column holds an instant. */
const TIME_ROLES: ReadonlySet<string> = new Set([
  'lease',
  'retryAfter',
  'processedAt',
  'expiresAt',
  'deadAt',
  'failedAt',
  'createdAt',
]);

function expectedKinds(
  role: string,
  payloadType: string | undefined,
  timeKinds: readonly ColumnKind[],
): readonly ColumnKind[] | undefined {
  switch (role) {
    case 'attempt':
    case 'priority':
      return ['integer'];
    case 'uniqueKey':
    case 'lastError':
    case 'errorClass':
      return ['text'];
    case 'lease':
    case 'retryAfter':
    case 'processedAt':
    case 'expiresAt':
    case 'deadAt':
    case 'failedAt':
    case 'createdAt':
      return timeKinds;
    case 'result':
      return ['json', 'text'];
    case 'payload':
      return payloadType === 'bytes'
        ? ['bytes']
        : payloadType === 'text'
          ? ['text', 'json']
          : ['json', 'text', 'bytes'];
    default:
      return undefined;
  }
}
