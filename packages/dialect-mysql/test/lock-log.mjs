// Records the advisory lock keys an adapter takes, so a conformance target can ask the server
// about exactly those names (MariaDB without the METADATA_LOCK_INFO plugin lists no user locks).
// Plain JavaScript: the crash scenarios' child process imports it as well as the targets.
import { appendFileSync } from 'node:fs';

/** The environment variable naming the file a target's adapters append their lock keys to. */
export const LOCK_LOG_ENV = 'SQLINBOX_MYSQL_LOCK_LOG';

/**
 * Wraps an adapter so every `advisory.lock` of a table it prepares first appends a line
 * `<schema or empty>\t<key>` to `file`. It only observes: each call goes on to the dialect's own.
 * Without a file it answers the adapter unchanged.
 */
export function recordLocks(adapter, file = process.env[LOCK_LOG_ENV]) {
  if (!file) return adapter;
  const dialect = adapter.dialect;
  const recording = Object.create(dialect);
  recording.prepare = (table, opts) => {
    const ops = dialect.prepare(table, opts);
    const schema = table.table.includes('.') ? table.table.split('.')[0] : '';
    const wrapped = Object.create(ops);
    wrapped.advisory = {
      ...ops.advisory,
      lock: (conn, key) => {
        appendFileSync(file, `${schema}\t${JSON.stringify(key)}\n`);
        return ops.advisory.lock(conn, key);
      },
    };
    return wrapped;
  };
  return { ...adapter, dialect: recording };
}
