import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { repositoryFile, repositoryFilesUrl } from '../site/site.ts';

/** The repository root, two levels above this package. */
export const repoRoot = resolve(import.meta.dirname, '../../..');

/**
 * The markdown files a user reads: README.md, docs/**\/*.md outside docs/dev, and every
 * packages/*\/README.md and examples/*\/README.md. Scanned, never listed, so new docs are checked too.
 */
export function userDocs(root: string = repoRoot): string[] {
  const files: string[] = [];
  if (existsSync(join(root, 'README.md'))) files.push(join(root, 'README.md'));
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (relative(root, path) !== join('docs', 'dev')) walk(path);
      } else if (entry.name.endsWith('.md')) files.push(path);
    }
  };
  if (existsSync(join(root, 'docs'))) walk(join(root, 'docs'));
  for (const parent of ['packages', 'examples']) {
    const dir = join(root, parent);
    if (!existsSync(dir)) continue;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const readme = join(dir, entry.name, 'README.md');
      if (entry.isDirectory() && existsSync(readme)) files.push(readme);
    }
  }
  return files.sort();
}

/** The developer docs (docs/dev), whose links are checked but which may cite requirement ids. */
export function devDocs(root: string = repoRoot): string[] {
  const dir = join(root, 'docs', 'dev');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(dir, name))
    .sort();
}

export interface Block {
  /** The markdown file, relative to the repository root. */
  file: string;
  /** The 1-based line of the first code line of the block in `file`. */
  line: number;
  /** Declarations placed before the block, from a `<!-- prelude: ... -->` comment. */
  prelude: string;
  code: string;
  /**
   * Set when the block's first line is `// packages/<path>`: the block quotes that file, with `// ...`
   * between the parts it leaves out. It is not compiled on its own (the file is, by its package's
   * typecheck; dialect-mssql's docs test checks the quote matches); the file must exist.
   */
  excerptOf?: string;
}

const fenceOpen = /^\s*(`{3,}|~{3,})\s*(ts|typescript)\b(.*)$/;
const preludeComment = /^<!--\s*prelude:([\s\S]*?)-->\s*$/;

/**
 * Every ```ts / ```typescript block of a markdown text. A block whose info string carries the word
 * `ignore` (```ts ignore) is pseudo-code and skipped. An HTML comment `<!-- prelude: ... -->`
 * ending just before the opening fence (blank lines allowed) supplies declarations the fragment
 * uses without defining them; it is compiled too, so it must be valid TypeScript. A block starting
 * with a `// packages/<path>` line is an excerpt of that file (see {@link Block.excerptOf}).
 */
export function extractBlocks(markdown: string, file: string): Block[] {
  const lines = markdown.split(/\r?\n/);
  const blocks: Block[] = [];
  let fence: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (fence === undefined) {
      const otherFence = /^\s*(`{3,}|~{3,})/.exec(line);
      const open = fenceOpen.exec(line);
      if (open) {
        const marker = open[1] ?? '```';
        const info = (open[3] ?? '').trim().split(/\s+/);
        let end = i + 1;
        while (end < lines.length && !new RegExp(`^\\s*${marker}${marker[0]}*\\s*$`).test(lines[end] ?? ''))
          end++;
        if (!info.includes('ignore')) {
          let before = i - 1;
          while (before >= 0 && (lines[before] ?? '').trim() === '') before--;
          const above = lines.slice(0, before + 1).join('\n');
          const prelude = preludeComment.exec(above.slice(above.lastIndexOf('<!--')))?.[1]?.trim() ?? '';
          const code = lines.slice(i + 1, end).join('\n');
          const excerptOf = /^\s*\/\/ (packages\/\S+)\s*$/.exec(lines[i + 1] ?? '')?.[1];
          blocks.push({ file, line: i + 2, prelude, code, ...(excerptOf ? { excerptOf } : {}) });
        }
        i = end;
      } else if (otherFence) {
        fence = otherFence[1];
      }
    } else if (new RegExp(`^\\s*${fence}${fence[0]}*\\s*$`).test(line)) {
      fence = undefined;
    }
  }
  return blocks;
}

export interface BlockDiagnostic {
  /** `file:line` of the offending line in the markdown (or of the block when the prelude errs). */
  at: string;
  message: string;
}

/**
 * Writes each block as a module into `dir` (which must sit where node_modules resolution finds
 * @sqlinbox/* and the drivers) and type-checks them all in one program against what the packages
 * export (their built dist .d.mts, never their sources). Returns one diagnostic per error, in order.
 */
export function compileBlocks(
  blocks: readonly Block[],
  dir: string,
  root: string = repoRoot,
): BlockDiagnostic[] {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const result: BlockDiagnostic[] = [];
  const origin = new Map<string, { block: Block; preludeLines: number }>();
  blocks.forEach((block, index) => {
    if (block.excerptOf !== undefined) {
      if (!existsSync(join(root, block.excerptOf)))
        result.push({
          at: `${block.file}:${block.line}`,
          message: `quotes ${block.excerptOf}, which does not exist`,
        });
      return;
    }
    const name = `${String(index).padStart(3, '0')}-${block.file.replace(/[^A-Za-z0-9]+/g, '_')}-L${block.line}.ts`;
    const path = join(dir, name);
    const preludeLines = block.prelude === '' ? 0 : block.prelude.split('\n').length;
    const text = `${block.prelude === '' ? '' : `${block.prelude}\n`}${block.code}\nexport {};\n`;
    writeFileSync(path, text);
    origin.set(resolve(path), { block, preludeLines });
  });
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2023.d.ts'],
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: ['node'],
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    isolatedModules: true,
    noUnusedLocals: false,
  };
  const program = ts.createProgram([...origin.keys()], options);
  const diagnostics = ts.getPreEmitDiagnostics(program);
  // The blocks must see what a user installs: the packages' dist, never their sources.
  for (const file of program.getSourceFiles()) {
    const path = relative(root, file.fileName);
    if (/^packages\/[^/]+\/src\//.test(path))
      result.push({ at: path, message: 'a block resolved a package source' });
  }
  for (const diagnostic of diagnostics) {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
    const source = diagnostic.file ? origin.get(resolve(diagnostic.file.fileName)) : undefined;
    if (!diagnostic.file || !source) {
      result.push({ at: diagnostic.file?.fileName ?? '(program)', message });
      continue;
    }
    const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
    const inCode = line - source.preludeLines;
    const at =
      inCode >= 0
        ? `${source.block.file}:${source.block.line + inCode}`
        : `${source.block.file}:${source.block.line - 1} (prelude)`;
    result.push({ at, message });
  }
  return result;
}

/** The blocks of every user doc, read from disk. */
export function userDocBlocks(root: string = repoRoot): Block[] {
  return userDocs(root).flatMap((path) => extractBlocks(readFileSync(path, 'utf8'), relative(root, path)));
}

/** Markdown text with its fenced code blocks blanked (line count kept). */
export function proseOnly(markdown: string): string {
  const lines = markdown.split(/\r?\n/);
  let fence: string | undefined;
  return lines
    .map((line) => {
      const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
      if (fence === undefined && marker) {
        fence = marker;
        return '';
      }
      if (fence !== undefined) {
        if (marker?.startsWith(fence) && line.trim().replace(/[`~]/g, '') === '') fence = undefined;
        return '';
      }
      return line;
    })
    .join('\n');
}

/**
 * Every link target `[text](target)` of a markdown file that does not exist on disk: relative ones, and
 * the repository's own files by their web address (`https://github.com/<repo>/blob/main/docs/...`,
 * `.../raw/main/...` for an image).
 * A package README, which npm shows away from the repository, may link nothing by a relative path.
 */
export function brokenLinks(path: string, root: string = repoRoot): string[] {
  const prose = proseOnly(readFileSync(path, 'utf8'));
  const broken: string[] = [];
  const filesUrl = repositoryFilesUrl(root);
  const packageReadme = /^packages\/[^/]+\/README\.md$/.test(relative(root, path));
  prose.split('\n').forEach((line, index) => {
    for (const match of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      const target = match[1] ?? '';
      const inRepository = repositoryFile(target, root);
      if (inRepository !== undefined) {
        if (!existsSync(join(root, inRepository.path)))
          broken.push(`${relative(root, path)}:${index + 1} ${target}`);
        continue;
      }
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#')) continue;
      if (packageReadme) {
        broken.push(
          `${relative(root, path)}:${index + 1} ${target} (relative: npm cannot resolve it; use ${filesUrl}...)`,
        );
        continue;
      }
      const file = decodeURIComponent(target.split('#')[0] ?? '');
      if (!existsSync(resolve(dirname(path), file)))
        broken.push(`${relative(root, path)}:${index + 1} ${target}`);
    }
    // Paths written as code: `packages/...` (and docs/, examples/, bench/) from the repository root,
    // `../...` from the file. `./x` is left alone: it is how the docs name a subpath export.
    for (const match of line.matchAll(/`((?:packages|docs|examples|bench)\/[^`\s*<>]*|\.\.\/[^`\s*<>]*)`/g)) {
      const target = match[1] ?? '';
      if (target.includes('...')) continue; // a placeholder, not a path
      const base = target.startsWith('../') ? dirname(path) : root;
      if (!existsSync(resolve(base, target.split('#')[0] ?? '')))
        broken.push(`${relative(root, path)}:${index + 1} ${target}`);
    }
  });
  return broken;
}
