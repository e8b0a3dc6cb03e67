/** Connection settings of the tests' server. */
export interface Db {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
}
/**
 * From `SQLINBOX_MYSQL_URL` (`mysql://user:password@host:port/database`; user default `root`, port
 * 3306, database `SQLINBOX_MYSQL_DATABASE`); without it, 127.0.0.1:3306, root, no password,
 * database `SQLINBOX_MYSQL_DATABASE` (default `test`).
 */
export declare function dbFromEnv(env?: NodeJS.ProcessEnv): Db;
