import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import { afterEach, beforeEach, expect, test } from 'vitest';

const here = resolve(import.meta.dirname, '..');
const program = join(here, 'queue.mjs');
const page = resolve(here, '../../docs/tutorial.md');

/** The page's fenced blocks of one language, in order. */
function blocks(lang: string): string[] {
  const out: string[] = [];
  let current: string[] | undefined;
  for (const line of readFileSync(page, 'utf8').split('\n')) {
    if (current === undefined) {
      if (line.trim() === '```' + lang) current = [];
    } else if (line.trim() === '```') {
      out.push(current.join('\n'));
      current = undefined;
    } else current.push(line);
  }
  return out;
}

interface Run {
  child: ChildProcess;
  /** Each stdout line with the time it arrived. */
  lines: { at: number; text: string }[];
  stderr: string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves when a stdout line equals `text`. */
  line(text: string): Promise<number>;
}

function run(file: string, args: string[], cwd: string, env: Record<string, string> = {}): Run {
  const child = spawn(process.execPath, [file, ...args], { cwd, env: { ...process.env, ...env } });
  const r: Run = {
    child,
    lines: [],
    stderr: '',
    exit: new Promise((res) => child.on('exit', (code, signal) => res({ code, signal }))),
    line: (text) =>
      new Promise((res, rej) => {
        const check = () => {
          const hit = r.lines.find((l) => l.text === text);
          if (hit) res(hit.at);
          return hit !== undefined;
        };
        if (check()) return;
        const timer = setInterval(() => check() && clearInterval(timer), 20);
        void r.exit.then(() => {
          clearInterval(timer);
          if (!check()) rej(new Error(`exited before printing "${text}":\n${r.stderr}`));
        });
      }),
  };
  let partial = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop()!;
    for (const text of parts) r.lines.push({ at: Date.now(), text });
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    r.stderr += chunk;
  });
  return r;
}

async function finished(r: Run): Promise<string[]> {
  const { code } = await r.exit;
  expect(code, r.stderr).toBe(0);
  return r.lines.map((l) => l.text);
}

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

  // The row stays, its first attempt counted (the column holds the next delivery's number), under a
  // lease that outlives the process.
  const { emails } = sqliteRows();
  expect(emails).toHaveLength(1);
  expect(emails[0]!.attempt).toBe(2);
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

test("R-DOC-2 the tutorial's program, with the two lines the page changes, runs end to end on PostgreSQL", async () => {
  const url = process.env.SQLINBOX_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  // The page's diff applied to the program; written beside it so its imports resolve.
  const [diff] = blocks('diff');
  let source = readFileSync(program, 'utf8');
  const removed = diff!.split('\n').filter((l) => l.startsWith('-'));
  const added = diff!.split('\n').filter((l) => l.startsWith('+'));
  expect(removed).toHaveLength(added.length);
  removed.forEach((l, i) => {
    source = source.replace(l.slice(1), added[i]!.slice(1));
  });
  expect(source).not.toContain('sqlite');
  const variant = join(here, '.vitest', 'queue-pg.mjs');
  mkdirSync(join(here, '.vitest'), { recursive: true });
  writeFileSync(variant, source);

  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const drop = () => client.query('DROP TABLE IF EXISTS emails, emails_dead');
  try {
    await drop();
    const env = { DATABASE_URL: url };
    expect(await finished(run(variant, ['setup'], dir, env))).toEqual([
      'created the tables emails and emails_dead',
      'done',
    ]);
    const out = await finished(run(variant, ['send', 'ada@example.com', 'grace@example.com'], dir, env));
    expect(out.slice(0, 3)).toEqual([
      'published an email to ada@example.com',
      'published an email to grace@example.com',
      'in the queue: 2 ready, 0 in work',
    ]);
    expect(out.filter((l) => l.startsWith('sent to')).sort()).toEqual([
      'sent to ada@example.com',
      'sent to grace@example.com',
    ]);
    expect(out.at(-1)).toBe('done');
    const left = await client.query(
      'SELECT (SELECT COUNT(*) FROM emails) + (SELECT COUNT(*) FROM emails_dead) AS n',
    );
    expect(Number(left.rows[0].n)).toBe(0);
  } finally {
    await drop();
    await client.end();
    rmSync(variant, { force: true });
  }
});
