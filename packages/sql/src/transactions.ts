import { type BeginOptions, ConfigError, type IsolationLevel, validateIdentifier } from '@sqlinbox/core';
import { ansiIdent } from './quote.js';

/** The isolation levels as `SET TRANSACTION ISOLATION LEVEL` and `BEGIN ISOLATION LEVEL` spell them. */
export const ISOLATION_SQL: Readonly<Record<IsolationLevel, string>> = {
  read_uncommitted: 'READ UNCOMMITTED',
  read_committed: 'READ COMMITTED',
  repeatable_read: 'REPEATABLE READ',
  serializable: 'SERIALIZABLE',
};

/** `SET TRANSACTION ISOLATION LEVEL ..` (MySQL, SQL Server), READ COMMITTED where none is given. */
export function setIsolation(level: IsolationLevel = 'read_committed'): string {
  return `SET TRANSACTION ISOLATION LEVEL ${ISOLATION_SQL[level]}`;
}

/** The statements of the engine's transactions on one database (the syntax's `transactions`). */
export interface TransactionSql {
  /** Opens a transaction with the table's level or mode: the statements run in turn. */
  begin(opts: BeginOptions): readonly string[];
  /** Commits. */
  readonly commit: string;
  /** Rolls back. */
  readonly rollback: string;
  /** Sets savepoint `name` (checked and quoted here: the engine's name, never a user's). */
  savepoint(name: string): string;
  /** Releases savepoint `name`; absent where the database has no release (it ends with the transaction). */
  releaseSavepoint?(name: string): string;
  /** Rolls back to savepoint `name`, keeping the transaction open. */
  rollbackToSavepoint(name: string): string;
}

/**
 * A savepoint name the engine chose, checked before it is written into a statement: an identifier
 * of letters, digits and underscores of at most `max` characters (the database's limit).
 */
export function savepointName(name: string, max = 63): string {
  if (name.length <= max) return validateIdentifier(name, 'savepoint');
  throw new ConfigError(`invalid savepoint name ${JSON.stringify(name)}`, {
    fix: `use letters, digits and underscores, at most ${max} characters`,
  });
}

/** Standard SQL's: `BEGIN`, `COMMIT`, `ROLLBACK`, `SAVEPOINT "name"`, `RELEASE SAVEPOINT "name"`. */
export const standardTransactions: TransactionSql = {
  begin: () => ['BEGIN'],
  commit: 'COMMIT',
  rollback: 'ROLLBACK',
  savepoint: (name) => `SAVEPOINT ${ansiIdent(savepointName(name))}`,
  releaseSavepoint: (name) => `RELEASE SAVEPOINT ${ansiIdent(savepointName(name))}`,
  rollbackToSavepoint: (name) => `ROLLBACK TO SAVEPOINT ${ansiIdent(savepointName(name))}`,
};
