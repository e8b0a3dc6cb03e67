// The tutorial (docs/tutorial.md) and its program (examples/tutorial/queue.mjs): the page shows the
// program as it is, and the program, run as real processes, works end to end on SQLite and recovers
// from a SIGKILL. Its PostgreSQL run is examples/tutorial/test/tutorial.test.ts (the PostgreSQL lane).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { blocks, finished, program, run } from '../../../examples/tutorial/test/support.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sqlinbox-tutorial-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** The rows left in the program's SQLite tables. */
function sqliteRows(): { emails: { attempt: number; locked_until: number | null }[]; dead: number } {
  const db = new DatabaseSync(join(dir, 'tutorial.db'));
  try {
    const emails = db.prepare('SELECT attempt, locked_until FROM emails').all() as {
      attempt: number;
      locked_until: number | null;
    }[];
    const dead = Number((db.prepare('SELECT COUNT(*) AS n FROM emails_dead').get() as { n: number }).n);
    return { emails, dead };
  } finally {
    db.close();
  }
}

test('R-DOC-2 the tutorial page shows the program as it is: its js blocks are queue.mjs, its diff applies to it', () => {
  expect(blocks('js').join('\n\n')).toBe(readFileSync(program, 'utf8').trimEnd());
  const diff = blocks('diff');
  expect(diff).toHaveLength(1);
  const lines = readFileSync(program, 'utf8').split('\n');
  for (const l of diff[0]!.split('\n').filter((l) => l.startsWith('-'))) expect(lines).toContain(l.slice(1));
});

test("R-DOC-2 the tutorial's program runs end to end on SQLite", async () => {
  expect(await finished(run(program, ['setup'], dir))).toEqual([
    'created the tables emails and emails_dead',
    'done',
  ]);
  const to = ['ada@example.com', 'grace@example.com', 'linus@example.com'];
  const out = await finished(run(program, ['send', ...to], dir));
  expect(out.slice(0, 4)).toEqual([
    ...to.map((t) => `published an email to ${t}`),
    'in the queue: 3 ready, 0 in work',
  ]);
  for (const t of to) {
    expect(out.filter((l) => l === `sending to ${t} (attempt 1)`)).toHaveLength(1);
    expect(out.indexOf(`sent to ${t}`)).toBeGreaterThan(out.indexOf(`sending to ${t} (attempt 1)`));
  }
  expect(out.filter((l) => l.startsWith('sending to'))).toHaveLength(3);
  expect(out.at(-1)).toBe('done');
  // Every email sent once and deleted; none dead.
  expect(sqliteRows()).toEqual({ emails: [], dead: 0 });
});

test("R-DOC-2 the tutorial's crash: a process killed mid-handler, started again, delivers the row again with its attempt counted", async () => {
  await finished(run(program, ['setup'], dir));
  const first = run(program, ['send', 'ada@example.com'], dir);
  await first.line('sending to ada@example.com (attempt 1)');
  first.child.kill('SIGKILL');
  expect(await first.exit).toEqual({ code: null, signal: 'SIGKILL' });
  expect(first.lines.map((l) => l.text)).not.toContain('sent to ada@example.com');

  // The row stays, its first attempt counted (the column holds the deliveries started), under a
  // lease that outlives the process.
  const { emails } = sqliteRows();
  expect(emails).toHaveLength(1);
  expect(emails[0]!.attempt).toBe(1);
  const leaseEnd = emails[0]!.locked_until!;
  expect(leaseEnd).toBeGreaterThan(Date.now());

  const second = run(program, [], dir);
  const again = await second.line('sending to ada@example.com (attempt 2)');
  const out = await finished(second);
  expect(out).toEqual([
    'in the queue: 0 ready, 1 in work',
    'sending to ada@example.com (attempt 2)',
    'sent to ada@example.com',
    'done',
  ]);
  // Delivered again only once the dead process's lease had run out.
  expect(again).toBeGreaterThanOrEqual(leaseEnd);
  expect(sqliteRows()).toEqual({ emails: [], dead: 0 });
});
