// The README's first screen as a new user meets it: what and why, the install line, and a program
// that runs as it is shown. The program is the README's first TypeScript block, written to an
// .mjs file and run by Node with nothing compiled; the contributors' commands come later.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { extractBlocks, repoRoot } from './blocks.js';

const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
const dir = mkdtempSync(join(tmpdir(), 'sqlinbox-readme-'));
// Inside this package (in .vitest), so the program's imports resolve to the built packages.
const programDir = join(import.meta.dirname, '..', '.vitest', 'readme');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('R-USER-1 the first screen says what sqlinbox is, how to install it, and shows a program before any contributor command', () => {
  const lines = readme.split('\n');
  const install = lines.findIndex((l) => l.startsWith('npm install @sqlinbox/core'));
  const program = extractBlocks(readme, 'README.md')[0]!;
  const contributor = lines.findIndex((l) => l.includes('pnpm install && pnpm test'));
  expect(install).toBeGreaterThan(0);
  expect(install).toBeLessThan(20);
  expect(program.line).toBeLessThan(40);
  expect(program.code.split('\n').filter((l) => l.trim() !== '').length).toBeLessThanOrEqual(14);
  expect(contributor).toBeGreaterThan(program.line);
  expect(lines.slice(0, install).join('\n')).toMatch(/message queue/);
  expect(readme).toMatch(/## Why sqlinbox, beside pg-boss, graphile-worker and BullMQ/);
  expect(readme).toContain('](docs/tutorial.md)');
  expect(readme).toContain('](docs/README.md)');
});

test('R-USER-1 the README program runs as shown: it creates its table, handles the message and stops on Ctrl-C', async () => {
  const program = extractBlocks(readme, 'README.md')[0]!;
  mkdirSync(programDir, { recursive: true });
  const file = join(programDir, 'app.mjs');
  writeFileSync(file, program.code);
  const child = spawn(process.execPath, [file], { cwd: dir, env: { ...process.env, NODE_OPTIONS: '' } });
  let out = '';
  let err = '';
  child.stderr.on('data', (c: Buffer) => {
    err += c.toString('utf8');
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString('utf8');
      if (out.includes('sending to ada@example.com')) resolve();
    });
    void exited.then((code) => reject(new Error(`exited early with ${code}: ${err}`)));
  });
  child.kill('SIGINT');
  expect(await exited).toBe(0);
  expect(out.trim()).toBe('sending to ada@example.com');
  expect(err).toBe('');
});

test('R-USER-1 a LICENSE file says MIT, as every public package does, and each public package keeps a changelog it ships', () => {
  expect(readFileSync(join(repoRoot, 'LICENSE'), 'utf8')).toMatch(/^MIT License\n/);
  const config = JSON.parse(readFileSync(join(repoRoot, '.changeset/config.json'), 'utf8')) as {
    fixed: string[][];
    privatePackages: { version: boolean };
  };
  expect(config.privatePackages.version).toBe(false);
  const changelog = readFileSync(join(repoRoot, 'CHANGELOG.md'), 'utf8');
  for (const name of readdirSync(join(repoRoot, 'packages'))) {
    const pkg = JSON.parse(readFileSync(join(repoRoot, 'packages', name, 'package.json'), 'utf8')) as {
      name: string;
      private?: boolean;
      license?: string;
      files?: string[];
    };
    if (pkg.private) continue;
    expect(pkg.license, pkg.name).toBe('MIT');
    expect(pkg.files, pkg.name).toContain('CHANGELOG.md');
    expect(readFileSync(join(repoRoot, 'packages', name, 'CHANGELOG.md'), 'utf8')).toMatch(
      new RegExp(`^# ${pkg.name}\\n`),
    );
    expect(changelog).toContain(`(packages/${name}/CHANGELOG.md)`);
    expect(
      config.fixed[0]!.some((p) => new RegExp(`^${p.replace('*', '.*')}$`).test(pkg.name)),
      pkg.name,
    ).toBe(true);
  }
});
