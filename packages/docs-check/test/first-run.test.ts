// A first run as a new user has it: the demo, the tutorial's program and the CLI, each a real
// process on the Node that runs these tests, print nothing on stderr about node:sqlite being
// experimental; a warning of the service's own still gets through.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, expect, test } from 'vitest';

const root = resolve(import.meta.dirname, '../../..');
const dir = mkdtempSync(join(tmpdir(), 'sqlinbox-first-run-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function node(args: string[], cwd = dir) {
  const r = spawnSync(process.execPath, args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

// Node prints this warning when a process loads node:sqlite (Node 22 and 24): the control below
// shows it does on this Node, so the checks after it can fail.
const nodeWarns = node(['-e', "process.getBuiltinModule('node:sqlite')"]).err.includes('ExperimentalWarning');

test('R-USER-7 loading node:sqlite yourself prints the ExperimentalWarning on this Node (the control)', () => {
  const major = Number(process.versions.node.split('.')[0]);
  if (major <= 24) expect(nodeWarns).toBe(true);
  else expect(typeof nodeWarns).toBe('boolean');
});

test('R-USER-7 the demo, the tutorial and the CLI print no ExperimentalWarning', () => {
  const demo = node([join(root, 'examples/demo/dist/demo.mjs'), '--jobs', '50', '--workers', '2']);
  expect(demo.code).toBe(0);
  expect(demo.err).not.toContain('ExperimentalWarning');

  const tutorial = node([join(root, 'examples/tutorial/queue.mjs'), 'setup']);
  expect(tutorial.out).toContain('created the tables emails and emails_dead');
  expect(tutorial.err).toBe('');

  const cli = node([
    join(root, 'packages/cli/dist/bin.mjs'),
    'stats',
    '--url',
    `sqlite:${join(dir, 'tutorial.db')}`,
    '--table',
    'emails',
    '--lease',
    'locked_until',
  ]);
  expect(cli.out).toContain('emails: ready=0');
  expect(cli.err).toBe('');
});

test("R-USER-7 only node:sqlite's warning is held back: the service's own warnings still print", () => {
  const script = join(root, 'packages/docs-check/.first-run-warning.mjs');
  writeFileSync(
    script,
    `import { sqlite } from '@sqlinbox/dialect-sqlite';
const a = sqlite(${JSON.stringify(join(dir, 'own.db'))});
const c = await a.pool.acquire();
a.pool.release(c);
process.emitWarning('my feature is experimental', 'ExperimentalWarning');
await a.close();
`,
  );
  try {
    const r = node([script], join(root, 'packages/docs-check'));
    expect(r.code).toBe(0);
    expect(r.err).toContain('ExperimentalWarning: my feature is experimental');
    expect(r.err).not.toContain('SQLite is an experimental feature');
  } finally {
    rmSync(script, { force: true });
  }
});
