/**
 * What an adapter on another SQLite driver reuses (R-USER-8): the statement kinds, told from the
 * text alone, agree with what SQLite itself says of every statement the dialect sends; a connection
 * of another adapter holds advisory keys through the file state it names; one without it is told
 * what to do.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Connection, inbox } from '@sqlinbox/core';
import { renderStatements, type SqlDialect } from '@sqlinbox/sql';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, test } from 'vitest';
import { sqliteDialect } from '../src/dialect.js';
import { attachSqliteFile, detachSqliteFile, sqliteStatementKind } from '../src/index.js';
import type { SqliteTable } from '../src/ops.js';

const dir = mkdtempSync(join(tmpdir(), 'sqlinbox-outside-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a shipped dialect on another driver', () => {
  test('R-USER-8 sqliteStatementKind agrees with SQLite on every statement the dialect sends (rows or a count; writes or not)', () => {
    const texts: string[] = [];
    renderStatements(sqliteDialect as SqlDialect, {
      format: (sql) => {
        texts.push(sql);
        return sql;
      },
    });
    // The statements come case by case, each case's DDL first: a fresh database per case, its tables
    // made, then every other statement of the case prepared against them.
    let db = new Database(':memory:');
    let inDdl = false;
    let compared = 0;
    for (const text of texts) {
      if (/^\s*CREATE\b/i.test(text)) {
        if (!inDdl) {
          db.close();
          db = new Database(':memory:');
          inDdl = true;
        }
        db.exec(text);
        continue;
      }
      inDdl = false;
      let stmt: Database.Statement;
      try {
        stmt = db.prepare(text);
      } catch {
        continue; // a statement of another table (a dead-letter table of a schema this database lacks)
      }
      const kind = sqliteStatementKind(text);
      expect(kind.returnsRows, text).toBe(stmt.reader);
      expect(kind.needsWriteLock, text).toBe(!stmt.readonly || /^\s*(?:BEGIN|SAVEPOINT)\b/i.test(text));
      compared += 1;
    }
    db.close();
    expect(compared).toBeGreaterThan(200);
  });

  test('R-USER-8 a connection of another adapter holds advisory keys through the file state it names', async () => {
    const file = join(dir, 'keys.db');
    new Database(file).close();
    const t = inbox({
      table: 'payouts',
      id: { column: 'id', generated: true },
      attempt: { column: 'attempt', generated: true },
      payload: 'payload',
      advisory: 'acct-{id}',
    });
    const ops = sqliteDialect.prepare(t);
    const a = attachSqliteFile(file);
    const b = attachSqliteFile(file);
    expect(a).toBe(b); // one state per file in the process
    const first: Connection & { sqliteFile: typeof a } = {
      id: 'mine:1',
      sqliteFile: a,
      query: async () => ({ rows: [], rowCount: 0 }),
    };
    const second: Connection & { sqliteFile: typeof a } = {
      id: 'mine:2',
      sqliteFile: b,
      query: async () => ({ rows: [], rowCount: 0 }),
    };
    expect(await ops.advisory.lock(first, 'acct-1')).toBe(true);
    expect(await ops.advisory.lock(second, 'acct-1')).toBe(false);
    expect(await (ops as unknown as SqliteTable).heldKeys(second, ['acct-1', 'acct-2'])).toBe(1);
    detachSqliteFile(a, first.id); // closing the connection lets its keys go
    expect(await ops.advisory.lock(second, 'acct-1')).toBe(true);
    detachSqliteFile(b, second.id);

    const stranger: Connection = { id: 'other:1', query: async () => ({ rows: [], rowCount: 0 }) };
    await expect(ops.advisory.lock(stranger, 'acct-1')).rejects.toThrow(
      /is not a connection of sqlite\(\.\.\) and names no sqliteFile: .*attachSqliteFile\(filename\)/,
    );
  });
});
