import type { Insert } from '@sqlinbox/core';
import type { Params, Statement } from '../params.js';
import { Feature, type QueueSql } from '../queue.js';
import { chunks } from '../quote.js';

/** One column an insert writes, and its value for a message. */
export interface InsertColumn {
  /** The column's name (unquoted). */
  readonly name: string;
  /** Reads the column's value from one message. */
  readonly value: (m: Insert) => unknown;
  /** The column's role, for a dialect that binds it in its own way (`payload` of a JSON column). */
  readonly role?: 'payload' | 'time' | undefined;
}

/** An insert the dialect assembles ({@link PublishStatements.insertSql}). */
export interface InsertParts {
  /** The quoted table name. */
  readonly table: string;
  /** Quoted column names; empty for a row of defaults. */
  readonly columns: readonly string[];
  /** One `(..)` of values per row. */
  readonly rows: readonly string[];
  /** Answer the new rows' ids. */
  readonly returning?: string | undefined;
  /** A unique key column: insert nothing where an unsettled row holds the key ({@link PublishStatements.onConflict}). */
  readonly conflictKey?: string | undefined;
  /**
   * With `conflictKey`: the quoted columns whose values the insert writes into the unsettled row
   * holding the key where it has not started ({@link PublishStatements.onReplace}) instead of
   * inserting nothing.
   */
  readonly replace?: readonly string[] | undefined;
}

/** How an insert meets the unique key: not at all, inserting nothing where it is held, or replacing. */
export type Conflict = boolean | 'replace';

/** Publishing: multi-row inserts, keyed inserts that meet the unique key, the key's holder. */
export class PublishStatements<Q extends QueueSql = QueueSql> extends Feature<Q> {
  /** The columns an insert of `messages` writes: the union over them. */
  insertColumns(messages: readonly Insert[]): InsertColumn[] {
    const { q, t } = this;
    const out: InsertColumn[] = [];
    const add = (name: string, value: (m: Insert) => unknown, role?: InsertColumn['role']) => {
      if (!out.some((c) => c.name === name)) out.push({ name, value, role });
    };
    const any = (f: (m: Insert) => unknown) => messages.some((m) => f(m) !== undefined);
    if (!t.id.generated && messages.some((m) => m.columns?.[t.id.column] !== undefined)) {
      add(t.id.column, (m) => m.columns?.[t.id.column]);
    }
    if (t.payload !== undefined) add(t.payload.column, (m) => m.payload, 'payload');
    if (t.attempt !== undefined && !t.attempt.generated) add(t.attempt.column, () => 0);
    if (any((m) => m.group)) add(q.role(t.group, 'group'), (m) => m.group);
    if (any((m) => m.partitionKey)) add(q.role(t.partitionKey, 'partitionKey'), (m) => m.partitionKey);
    // A replacing insert writes the delay it was given into the holder, none too.
    if (any((m) => m.notBefore) || (t.retryAfter !== undefined && messages.some((m) => m.replace === true)))
      add(q.role(t.retryAfter, 'retryAfter'), (m) => m.notBefore, 'time');
    if (any((m) => m.expiresAt)) add(q.role(t.expiresAt, 'expiresAt'), (m) => m.expiresAt, 'time');
    if (any((m) => m.priority)) add(q.role(t.priority, 'priority'), (m) => m.priority);
    if (any((m) => m.key)) add(q.role(t.uniqueKey, 'uniqueKey'), (m) => m.key);
    for (const m of messages) {
      for (const name of Object.keys(m.columns ?? {})) {
        if (name === t.id.column && t.id.generated) continue;
        add(name, (x) => x.columns?.[name]);
      }
    }
    return out;
  }

  /** Binds one value of an insert. A dialect binds a JSON payload or an instant in its own way. */
  insertValue(p: Params, column: InsertColumn, value: unknown): string {
    void column;
    if (value instanceof Date) return this.s.time(p, value);
    return p.bind(value);
  }

  /**
   * Multi-row inserts, as few statements as the parameter limit allows, each answering the new
   * ids (where the database can). A message without a value for a column writes NULL there (the
   * column's default where the dialect writes `DEFAULT`).
   */
  insert(messages: readonly Insert[], conflict: Conflict = false): Statement[] {
    // Where VALUES takes no DEFAULT, a run of messages giving the same columns is one statement
    // (consecutive runs, so generated ids still ascend in message order).
    if (this.s.missingValue === undefined) {
      const runs: Insert[][] = [];
      let last: string | undefined;
      for (const m of messages) {
        const given = this.insertColumns([m])
          .map((c) => c.name)
          .join('\0');
        if (given === last) runs[runs.length - 1]!.push(m);
        else runs.push([m]);
        last = given;
      }
      if (runs.length > 1) return runs.flatMap((run) => this.insertRun(run, conflict));
    }
    return this.insertRun(messages, conflict);
  }

  /** {@link insert} of messages written with one column list. */
  insertRun(messages: readonly Insert[], conflict: Conflict): Statement[] {
    const q = this.q;
    const columns = this.insertColumns(messages);
    const names = columns.map((c) => q.ident(c.name));
    const conflictKey = conflict === false ? undefined : q.role(this.t.uniqueKey, 'uniqueKey');
    const replace = conflict === 'replace' ? this.replaced(columns) : undefined;
    if (columns.length === 0) {
      return messages.map(() => {
        const p = q.params();
        return p.statement(
          this.insertSql({ table: q.table, columns: [], rows: [], returning: q.id, conflictKey, replace }),
        );
      });
    }
    return chunks(messages, Math.floor(this.s.maxParams / columns.length)).map((part) => {
      const p = q.params();
      const rows = part.map((m, k) =>
        this.insertRow(
          columns.map((c) => this.insertMissing(p, c, m)),
          k,
        ),
      );
      return p.statement(
        this.insertSql({ table: q.table, columns: names, rows, returning: q.id, conflictKey, replace }),
      );
    });
  }

  /** One row of an insert's `VALUES`, the `index`th of its statement. */
  insertRow(values: readonly string[], index: number): string {
    void index;
    return `(${values.join(', ')})`;
  }

  /** One value of a row, or what the database writes for a column the message leaves out. */
  insertMissing(p: Params, c: InsertColumn, m: Insert): string {
    const v = c.value(m);
    return v === undefined ? (this.s.missingValue ?? 'NULL') : this.insertValue(p, c, v);
  }

  /**
   * The quoted columns a replacing insert writes into the holder: the payload and `retry_after`
   * (each where the table has it and the insert writes it).
   */
  replaced(columns: readonly InsertColumn[]): string[] {
    const t = this.t;
    const own = [t.payload?.column, t.retryAfter];
    return columns.filter((c) => own.includes(c.name)).map((c) => this.q.ident(c.name));
  }

  /** A multi-row insert; a replacing one names its table `q` ({@link onReplace}). */
  insertSql(i: InsertParts): string {
    const conflict =
      i.conflictKey === undefined
        ? ''
        : i.replace === undefined
          ? this.onConflict(i.conflictKey)
          : this.onReplace(i.conflictKey, i.replace);
    const table = i.replace === undefined ? i.table : this.replaceTarget(i.table);
    const ret = i.returning === undefined ? '' : (this.s.returning(i.returning) ?? '');
    if (i.columns.length === 0) return `INSERT INTO ${table} DEFAULT VALUES${conflict}${ret}`;
    return `INSERT INTO ${table} (${i.columns.join(', ')}) VALUES ${i.rows.join(', ')}${conflict}${ret}`;
  }

  /** The table a replacing insert writes, named `q` for {@link onReplace}. */
  replaceTarget(table: string): string {
    return `${table} AS q`;
  }

  /**
   * Row `a` (the bare column without one) has not started: no delivery has been counted (publish
   * writes 0; the lease claim and the advisory take add one, the row lock form adds one at its
   * settlement, whose row is locked until then; a claim taken back before its handler ran
   * subtracts it).
   */
  unstarted(a?: string): string {
    const q = this.q;
    return `${q.col(a, q.role(this.t.attempt?.column, 'attempt'))} < 1`;
  }

  /**
   * The clause that makes an insert write `columns` (quoted) into the unsettled row holding the
   * key where it has not started ({@link unstarted}), and nothing where it has; the insert's table
   * is `q`. It answers the id of the row it wrote, none where the holder had started.
   */
  onReplace(keyColumn: string, columns: readonly string[]): string {
    const q = this.q;
    const where = this.t.processedAt === undefined ? '' : ` WHERE ${q.ident(this.t.processedAt)} IS NULL`;
    const set = columns.length === 0 ? [`${q.id} = q.${q.id}`] : columns.map((c) => `${c} = EXCLUDED.${c}`);
    return ` ON CONFLICT (${q.ident(keyColumn)})${where} DO UPDATE SET ${set.join(', ')} WHERE ${this.unstarted('q')}`;
  }

  /**
   * The clause that makes an insert write nothing where an unsettled row holds the unique key
   * (the table's partial unique index decides).
   */
  onConflict(keyColumn: string): string {
    const q = this.q;
    const where = this.t.processedAt === undefined ? '' : ` WHERE ${q.ident(this.t.processedAt)} IS NULL`;
    return ` ON CONFLICT (${q.ident(keyColumn)})${where} DO NOTHING`;
  }

  /**
   * A replacing insert as a standard `MERGE`, for a database without `ON CONFLICT`: the insert's
   * rows as `v` (their columns, then `extra` ones the rows carry), matched on the key among
   * unsettled rows; the holder updated where it has not started ({@link unstarted}), a row inserted
   * where none holds the key. `hint` follows the table, `output` the clauses.
   */
  merge(i: InsertParts, hint = '', extra: readonly string[] = [], output = ''): string {
    const q = this.q;
    const key = q.ident(q.role(i.conflictKey, 'uniqueKey'));
    const set = (i.replace ?? []).map((c) => `${c} = v.${c}`).join(', ');
    const update = set === '' ? '' : ` WHEN MATCHED AND ${this.unstarted('q')} THEN UPDATE SET ${set}`;
    return (
      `MERGE INTO ${i.table}${hint} AS q USING (VALUES ${i.rows.join(', ')}) AS v (${[...i.columns, ...extra].join(', ')})` +
      ` ON q.${key} = v.${key}${q.unsettled('q')}${update}` +
      ` WHEN NOT MATCHED THEN INSERT (${i.columns.join(', ')}) VALUES (${i.columns.map((c) => `v.${c}`).join(', ')})${output}`
    );
  }

  /** A keyed insert of one message: nothing where an unsettled row holds the key ({@link onConflict}). */
  insertKeyed(m: Insert): Statement {
    return this.insert([m], true)[0]!;
  }

  /**
   * A keyed insert of one message that replaces the payload and delay of the unsettled row holding
   * the key where that row has not started ({@link onReplace}).
   */
  insertReplacing(m: Insert): Statement {
    return this.insert([m], 'replace')[0]!;
  }

  /** The id of the unsettled row that holds a unique key. */
  keyHolder(key: string): Statement {
    const q = this.q;
    const p = q.params();
    return p.statement(
      `SELECT ${q.id} FROM ${q.table}` +
        ` WHERE ${q.ident(q.role(this.t.uniqueKey, 'uniqueKey'))} = ${p.bind(key)}${q.unsettled()}`,
    );
  }
}
