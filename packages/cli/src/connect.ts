/** The database a URL names, and the dialect `--dialect` names. */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Adapter, checkConnectionString, type Dialect } from '@sqlinbox/core';
import { json, UsageError } from './base.js';

/** The dialect `--dialect` names, for `ddl` without a database. */
export async function dialectNamed(name: string): Promise<Dialect> {
  const n = name.toLowerCase();
  if (n === 'postgres' || n === 'postgresql')
    return (await import('@sqlinbox/dialect-postgres')).postgresDialect;
  if (n === 'mysql' || n === 'mariadb') return (await import('@sqlinbox/dialect-mysql')).mysqlDialect;
  if (n === 'sqlite') return (await import('@sqlinbox/dialect-sqlite')).sqliteDialect;
  throw new UsageError(`unknown --dialect ${name}: use postgres, mysql (or mariadb) or sqlite`);
}

/** Opens the database a URL names: `postgres://`, `mysql://` or `mariadb://`, `sqlite:<path>`. */
export async function openUrl(url: string): Promise<
  Adapter & {
    /** Ends the pool opened from the URL. */
    close(): Promise<void>;
  }
> {
  const scheme = /^([a-z0-9+]+):/i.exec(url)?.[1]?.toLowerCase();
  if (scheme === 'postgres' || scheme === 'postgresql') {
    checkConnectionString(url, {
      option: 'the URL',
      schemes: ['postgres', 'postgresql'],
      example: 'postgres://user:password@localhost:5432/app',
    });
    const { default: pgLib } = await import('pg');
    const { pg } = await import('@sqlinbox/dialect-postgres/pg');
    const pool = new pgLib.Pool({ connectionString: url, max: 2 });
    pool.on('error', () => undefined);
    const adapter = pg(pool);
    return { ...adapter, close: async () => await pool.end() };
  }
  if (scheme === 'mysql' || scheme === 'mariadb') {
    checkConnectionString(url, {
      option: 'the URL',
      schemes: ['mysql', 'mariadb'],
      example: 'mysql://user:password@localhost:3306/app',
    });
    const { default: mysql } = await import('mysql2/promise');
    const { mysql2 } = await import('@sqlinbox/dialect-mysql/mysql2');
    const pool = mysql.createPool({ uri: `mysql:${url.slice(scheme.length + 1)}`, connectionLimit: 2 });
    const adapter = mysql2(pool);
    return { ...adapter, close: async () => await pool.end() };
  }
  if (scheme === 'sqlite') {
    const path = url.replace(/^sqlite:(\/\/)?/i, '');
    if (path === '') throw new UsageError(`the URL ${url} names no file; write sqlite:./path/to/file.db`);
    if (!existsSync(path)) throw new UsageError(`no SQLite file at ${resolve(path)} (from ${url})`);
    const { sqlite } = await import('@sqlinbox/dialect-sqlite');
    return sqlite({ filename: path, connections: 2 });
  }
  throw new UsageError(
    `cannot read the URL ${json(url)}: use postgres://, mysql:// (or mariadb://) or sqlite:<file>`,
  );
}
