/**
 * `@sqlinbox/dialect-mysql`: sqlinbox on MySQL 8.0.1+ and MariaDB 10.6+. This entry holds the
 * dialect and imports no driver; the drivers live behind their own subpaths:
 * `@sqlinbox/dialect-mysql/mysql2` (`mysql2(pool)`) and `@sqlinbox/dialect-mysql/mariadb`
 * (`mariadb(pool)`).
 */

export { ddl } from './ddl.js';
export {
  checkVersion,
  classifyError,
  createMysqlDialect,
  MARIADB_FLOOR,
  MYSQL_FLOOR,
  type MysqlDialectOptions,
  mysqlDialect,
  parseServerVersion,
  type ServerVersion,
} from './dialect.js';
export { toDriverValue as toMysqlValue, utc } from './sql.js';
export { LOCK_NAME_MAX, lockNameOf } from './statements.js';
