// Where the tests and their child processes connect: SQLINBOX_MYSQL_URL
// (mysql://user:password@host:port/database: user default root, port 3306, database
// SQLINBOX_MYSQL_DATABASE), which test/global-setup.ts sets when it is not given; without it,
// 127.0.0.1:3306, root, no password, database SQLINBOX_MYSQL_DATABASE (default test).

/** @param {NodeJS.ProcessEnv} [env] */
export function dbFromEnv(env = process.env) {
  const database = env.SQLINBOX_MYSQL_DATABASE || 'test';
  const url = env.SQLINBOX_MYSQL_URL;
  if (url === undefined || url === '') {
    return { host: '127.0.0.1', port: 3306, user: 'root', password: '', database };
  }
  const u = new URL(url);
  if (u.protocol !== 'mysql:' && u.protocol !== 'mariadb:') {
    throw new Error(`SQLINBOX_MYSQL_URL must start with mysql:// or mariadb://, got ${u.protocol}//`);
  }
  return {
    host: u.hostname,
    port: Number(u.port || 3306),
    user: decodeURIComponent(u.username) || 'root',
    password: decodeURIComponent(u.password),
    database: decodeURIComponent(u.pathname.replace(/^\//, '')) || database,
  };
}
