/**
 * Prisma (7, with a driver adapter) and sqlinbox's transactions, both ways:
 * - `prismaTx(tx)`: a Prisma interactive transaction (`prisma.$transaction(async (tx) => ..)`) as
 *   the core's transaction handle, for `broker.publish(table, message, { tx: prismaTx(tx) })`: the
 *   message commits or rolls back with it.
 * - `prismaOf(prisma, ctx.tx, fn)`: in a transactional handler, runs `fn` in a Prisma transaction
 *   that is a savepoint inside the delivery's transaction: what it writes commits with the ack. The
 *   client's driver adapter must be wrapped once with `deliveryAdapter(adapter)`.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type {
  ColumnType,
  ColumnTypeEnum as ColumnTypes,
  SqlDriverAdapter,
  SqlDriverAdapterFactory,
  SqlQuery,
  SqlResultSet,
  Transaction,
} from '@prisma/driver-adapter-utils';
import type { Queryable, Row } from '@sqlinbox/core';
import { answersRows, type BridgeResult, binderOf, type Family } from './shared.js';

/** What the bridge calls on a Prisma transaction client. */
export interface PrismaTransactionLike {
  /** Runs a statement that answers rows; answers them. */
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T>;
  /** Runs a statement; answers the rows it changed. */
  $executeRawUnsafe(query: string, ...values: unknown[]): Promise<number>;
}

/** What {@link prismaOf} calls on a Prisma client. */
export interface PrismaClientLike {
  /** Prisma's interactive transaction. */
  $transaction(fn: (tx: any) => Promise<any>): Promise<any>;
}

/** The family of a Prisma client, by its provider (`postgresql`, `mysql`, `sqlite`). */
function familyOf(provider: string): Family {
  if (/postgres|cockroach/i.test(provider)) return 'postgres';
  if (/mysql|maria/i.test(provider)) return 'mysql';
  if (/sqlite/i.test(provider)) return 'sqlite';
  throw new Error(`sqlinbox: the Prisma provider ${provider} is not PostgreSQL, MySQL/MariaDB or SQLite`);
}

/**
 * A Prisma interactive transaction as the core's transaction handle. A statement that answers rows
 * runs through `$queryRawUnsafe`, any other through `$executeRawUnsafe` (Prisma answers one or the
 * other); values bound as the database's sqlinbox adapter binds them. `provider` is the schema's
 * datasource provider (default `postgresql`).
 */
export function prismaTx(tx: PrismaTransactionLike, provider = 'postgresql'): Queryable {
  const family = familyOf(provider);
  return {
    async query<R>(sql: string, params: readonly unknown[] = []): Promise<BridgeResult<R>> {
      const values = params.map(await binderOf(family));
      if (answersRows(sql)) {
        const rows = await tx.$queryRawUnsafe<R[]>(sql, ...values);
        return { rows, rowCount: rows.length };
      }
      return { rows: [], rowCount: await tx.$executeRawUnsafe(sql, ...values) };
    },
  };
}

/** The delivery whose transaction a Prisma transaction started inside {@link prismaOf} joins. */
const delivery = new AsyncLocalStorage<Queryable>();
let savepoints = 0;

/** A value of a row as a driver adapter answers it: text for instants, 64-bit integers and JSON. */
function resultValue(v: unknown): unknown {
  if (v instanceof Date) return v.toISOString();
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof Uint8Array) return v;
  if (v !== null && typeof v === 'object') return JSON.stringify(v);
  return v;
}

/**
 * The column types this bridge answers, by their numbers in Prisma's driver-adapter protocol (the
 * compiler checks each against `ColumnTypeEnum`), so nothing of Prisma's is loaded at run time.
 */
const ColumnTypeEnum = {
  Int32: 0,
  Int64: 1,
  Double: 3,
  Boolean: 5,
  Text: 7,
  DateTime: 10,
  Json: 11,
  Bytes: 13,
  UnknownNumber: 128,
} as const satisfies Partial<typeof ColumnTypes>;

/** A column's type, read from its first value that is not null. */
function columnTypeOf(values: readonly unknown[]): ColumnType {
  const v = values.find((x) => x !== null && x !== undefined);
  if (typeof v === 'number')
    return Number.isInteger(v)
      ? Math.abs(v) <= 2 ** 31 - 1
        ? ColumnTypeEnum.Int32
        : ColumnTypeEnum.Int64
      : ColumnTypeEnum.Double;
  if (typeof v === 'bigint') return ColumnTypeEnum.Int64;
  if (typeof v === 'boolean') return ColumnTypeEnum.Boolean;
  if (v instanceof Date) return ColumnTypeEnum.DateTime;
  if (v instanceof Uint8Array) return ColumnTypeEnum.Bytes;
  if (v !== undefined && typeof v === 'object') return ColumnTypeEnum.Json;
  return v === undefined ? ColumnTypeEnum.UnknownNumber : ColumnTypeEnum.Text;
}

/** The delivery's transaction as a Prisma driver-adapter transaction: a savepoint inside it. */
async function deliveryTransaction(
  tx: Queryable,
  info: { provider: Transaction['provider']; adapterName: string },
) {
  const name = `sqlinbox_prisma_${++savepoints}`;
  await tx.query(`SAVEPOINT ${name}`);
  const queryRaw = async (q: SqlQuery): Promise<SqlResultSet> => {
    const r = await tx.query<Row>(q.sql, q.args);
    const columnNames = r.rows.length > 0 ? Object.keys(r.rows[0]!) : [];
    return {
      columnNames,
      columnTypes: columnNames.map((c) => columnTypeOf(r.rows.map((row) => row[c]))),
      rows: r.rows.map((row) => columnNames.map((c) => resultValue(row[c]))) as SqlResultSet['rows'],
      ...((r as BridgeResult).insertId === undefined
        ? {}
        : { lastInsertId: String((r as BridgeResult).insertId) }),
    };
  };
  const t: Transaction = {
    provider: info.provider,
    adapterName: info.adapterName,
    // Prisma sends no COMMIT or ROLLBACK of its own: the savepoint's commit and rollback below are all.
    options: { usePhantomQuery: true },
    queryRaw,
    executeRaw: async (q) => (await tx.query(q.sql, q.args)).rowCount,
    commit: async () => void (await tx.query(`RELEASE SAVEPOINT ${name}`)),
    rollback: async () => void (await tx.query(`ROLLBACK TO SAVEPOINT ${name}`)),
  };
  return t;
}

/**
 * Wraps a Prisma driver adapter (`new PrismaPg(..)`, `new PrismaMariaDb(..)`) so that a transaction
 * started inside {@link prismaOf} joins the delivery's transaction; every other query and
 * transaction goes to the adapter as before. Pass the result to `new PrismaClient({ adapter })`.
 */
export function deliveryAdapter<F extends SqlDriverAdapterFactory>(factory: F): F {
  return {
    ...factory,
    provider: factory.provider,
    adapterName: factory.adapterName,
    async connect(): Promise<SqlDriverAdapter> {
      const inner = await factory.connect();
      return new Proxy(inner, {
        get(target, key, receiver) {
          if (key === 'startTransaction') {
            return async (isolation?: Parameters<SqlDriverAdapter['startTransaction']>[0]) => {
              const tx = delivery.getStore();
              if (tx === undefined) return target.startTransaction(isolation);
              return deliveryTransaction(tx, { provider: target.provider, adapterName: target.adapterName });
            };
          }
          const v = Reflect.get(target, key, receiver);
          return typeof v === 'function' ? v.bind(target) : v;
        },
      });
    },
  } as F;
}

/**
 * Runs `fn` in a Prisma interactive transaction that is a savepoint of the delivery's transaction
 * (`ctx.tx` of a transactional handler): its writes commit with the handler's ack, and roll back
 * with any other outcome, or at once when `fn` throws. The client's adapter must come from
 * {@link deliveryAdapter}. Column types of what it reads are taken from the values: Int, BigInt,
 * Float, String, Boolean, DateTime and Json fields; not Bytes or Decimal.
 */
export function prismaOf<C extends PrismaClientLike, R>(
  prisma: C,
  tx: Queryable,
  fn: (ptx: Parameters<Parameters<C['$transaction']>[0]>[0]) => Promise<R>,
): Promise<R> {
  return delivery.run(tx, () => prisma.$transaction(fn)) as Promise<R>;
}
