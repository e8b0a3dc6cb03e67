/**
 * A scripted `TableOps` for the unit tests of the pump and the forms: each statement answers the
 * next answer its script gives (an `Error` is thrown), or its default, and every call is
 * recorded. It decides nothing a database would: the tests say what each statement answers.
 */
import { Budget } from '../src/budget.js';
import type { AnyTable } from '../src/description.js';
import type { FormContext } from '../src/forms/form.js';
import {
  type Capabilities,
  type Connection,
  capabilities,
  type Dialect,
  type ErrorKind,
  type Pool,
  type Row,
  type TableOps,
} from '../src/index.js';
import { type Logger, silentLogger } from '../src/logger.js';

/** The statements a script answers, by name. */
export type Statement =
  | 'claimLocked'
  | 'claimLease'
  | 'extendLeases'
  | 'settle'
  | 'settleMany'
  | 'insert'
  | 'candidates'
  | 'lock'
  | 'unlock'
  | 'take'
  | 'begin'
  | 'commit'
  | 'rollback'
  | 'savepoint'
  | 'rollbackToSavepoint';

/** What each statement answers, in order; after the last, its default. */
export type Script = Partial<Record<Statement, unknown[]>>;

const DEFAULTS: Record<Statement, () => unknown> = {
  claimLocked: () => [],
  claimLease: () => [],
  extendLeases: () => [],
  settle: () => 1,
  settleMany: () => [],
  insert: () => [1],
  candidates: () => [],
  lock: () => true,
  unlock: () => true,
  take: () => null,
  begin: () => undefined,
  commit: () => undefined,
  rollback: () => undefined,
  savepoint: () => undefined,
  rollbackToSavepoint: () => undefined,
};

/** A scripted table: its ops, its dialect, a pool of numbered connections, and the calls made. */
export interface Scripted {
  readonly ops: TableOps;
  readonly dialect: Dialect;
  readonly pool: Pool & { readonly out: number };
  /** Each call, as `name` (with the connection's id where it has one). */
  readonly calls: string[];
  /** The `Settlement` objects `settle` was given, in order. */
  readonly settlements: unknown[];
  /** Adds answers to a statement's script. */
  answer(statement: Statement, ...answers: unknown[]): void;
}

export function scripted(
  script: Script = {},
  opts: { batch?: boolean; caps?: Partial<Capabilities>; kind?: ErrorKind } = {},
): Scripted {
  const queue: Script = Object.fromEntries(Object.entries(script).map(([k, v]) => [k, [...v]]));
  const calls: string[] = [];
  const settlements: unknown[] = [];
  const run = async (name: Statement, conn?: Connection): Promise<any> => {
    calls.push(conn === undefined ? name : `${name}@${conn.id}`);
    const next = queue[name]?.length ? queue[name]!.shift() : DEFAULTS[name]();
    if (next instanceof Error) throw next;
    return next;
  };
  const ops = {
    claimLocked: (conn: Connection) => run('claimLocked', conn),
    claimLease: (conn: Connection) => run('claimLease', conn),
    extendLeases: (conn: Connection) => run('extendLeases', conn),
    insert: (conn: Connection) => run('insert', conn),
    settle: (conn: Connection, s: unknown) => {
      settlements.push(s);
      return run('settle', conn);
    },
    advisory: {
      candidates: (conn: Connection) => run('candidates', conn),
      lock: (conn: Connection) => run('lock', conn),
      unlock: (conn: Connection) => run('unlock', conn),
      take: (conn: Connection) => run('take', conn),
    },
    ...(opts.batch ? { batch: { settleMany: (conn: Connection) => run('settleMany', conn) } } : {}),
  } as unknown as TableOps;
  const dialect = {
    name: 'scripted',
    capabilities: capabilities(opts.caps ?? {}),
    prepare: () => ops,
    begin: (conn: Connection) => run('begin', conn),
    commit: (conn: Connection) => run('commit', conn),
    rollback: (conn: Connection) => run('rollback', conn),
    savepoint: (conn: Connection) => run('savepoint', conn),
    rollbackToSavepoint: (conn: Connection) => run('rollbackToSavepoint', conn),
    classifyError: () => opts.kind ?? 'deadlock',
  } as unknown as Dialect;
  let made = 0;
  let out = 0;
  const idle: Connection[] = [];
  const connection = (): Connection => {
    const c = idle.pop();
    if (c !== undefined) return c;
    const id = `c${++made}`;
    return { id, query: () => Promise.reject(new Error('a unit test sends no SQL')) };
  };
  const pool = {
    size: 10,
    get out() {
      return out;
    },
    spare: () => 10 - out,
    acquire: async () => {
      out++;
      return connection();
    },
    tryAcquire: async () => {
      out++;
      return connection();
    },
    release: (c: Connection) => {
      out--;
      idle.push(c);
    },
    destroy: async () => {
      out--;
    },
  };
  return {
    ops,
    dialect,
    pool,
    calls,
    settlements,
    answer: (statement, ...answers) => {
      const answersOf = queue[statement] ?? [];
      answersOf.push(...answers);
      queue[statement] = answersOf;
    },
  };
}

/** A form's context over a scripted table. */
export function formContext(
  table: AnyTable,
  s: Scripted,
  opts: { transactional?: boolean; leaseMs?: number; logger?: Logger } = {},
): FormContext & { budget: Budget } {
  return {
    table,
    dialect: s.dialect,
    ops: s.ops,
    pool: s.pool,
    budget: new Budget(s.pool),
    logger: opts.logger ?? silentLogger,
    transactional: opts.transactional ?? false,
    begin: {},
    deadLetter: undefined,
    leaseMs: opts.leaseMs ?? 30_000,
    now: () => new Date(),
  };
}

/** A row of the scripted table `jobs`. */
export function row(id: number, extra: Row = {}): Row {
  return { id, payload: JSON.stringify({ n: id }), attempt: 0, ...extra };
}
