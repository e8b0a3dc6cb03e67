// The tutorial's program and page, and running the program as a child process: shared by this
// package's PostgreSQL test (test/tutorial.test.ts, in the PostgreSQL lane) and the server-free
// tests in packages/docs-check/test/tutorial.test.ts.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The tutorial's package directory (examples/tutorial): the program's imports resolve from here. */
export const here = resolve(import.meta.dirname, '..');
/** The tutorial's program. */
export const program = join(here, 'queue.mjs');
/** The tutorial's page. */
export const page = resolve(here, '../../docs/tutorial.md');

/** The page's fenced blocks of one language, in order. */
export function blocks(lang: string): string[] {
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

export interface Run {
  child: ChildProcess;
  /** Each stdout line with the time it arrived. */
  lines: { at: number; text: string }[];
  stderr: string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves when a stdout line equals `text`. */
  line(text: string): Promise<number>;
}

/** Starts `node file args..` in `cwd` (where the program's SQLite file goes). */
export function run(file: string, args: string[], cwd: string, env: Record<string, string> = {}): Run {
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

/** The run's stdout lines once it has exited; throws, with its stderr, unless it exited with code 0. */
export async function finished(r: Run): Promise<string[]> {
  const { code, signal } = await r.exit;
  if (code !== 0) throw new Error(`exited with ${code ?? signal}, not 0:\n${r.stderr}`);
  return r.lines.map((l) => l.text);
}
