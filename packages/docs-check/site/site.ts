// The docs site: the API reference of every published package (TypeDoc, from the packages' sources)
// and the user docs (README.md, docs/ outside docs/dev, each package's README) rendered together into
// one folder, then every internal link and anchor of it checked (linkinator, offline).
//
// Self-contained (no import of a local .ts file) so that `node site/main.ts` runs it with Node's own
// type stripping; the tests import the same functions.
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, posix, relative, resolve } from 'node:path';
import { LinkChecker, type LinkResult, LinkState } from 'linkinator';
import {
  Application,
  Converter,
  type DocumentReflection,
  KindRouter,
  Logger,
  LogLevel,
  type Options,
  type OptionsReader,
  PageEvent,
  type ProjectReflection,
  type Reflection,
  TSConfigReader,
  type TypeDocOptions,
} from 'typedoc';

/** The repository root, two levels above this package. */
export const repoRoot = resolve(import.meta.dirname, '../../..');

export interface PublishedPackage {
  /** The npm name, `@sqlinbox/core`. */
  name: string;
  /** Its folder. */
  dir: string;
  /** The source file of each export (the `@sqlinbox/source` condition), `.` first. */
  entryPoints: string[];
}

/**
 * The packages that are published: every `packages/*` whose package.json is not private and lists the
 * `files` it ships. Scanned, never listed, so a new package is documented without touching this file.
 */
export function publishedPackages(root: string = repoRoot): PublishedPackage[] {
  const dir = join(root, 'packages');
  const result: PublishedPackage[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const manifest = join(dir, entry.name, 'package.json');
    if (!entry.isDirectory() || !existsSync(manifest)) continue;
    const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as {
      name: string;
      private?: boolean;
      files?: string[];
      exports?: Record<string, string | Record<string, string>>;
    };
    if (pkg.private === true || !Array.isArray(pkg.files)) continue;
    const entryPoints: string[] = [];
    for (const [subpath, target] of Object.entries(pkg.exports ?? {})) {
      if (subpath === './package.json') continue;
      const source = typeof target === 'object' ? target['@sqlinbox/source'] : undefined;
      if (source === undefined)
        throw new Error(`${pkg.name}: export '${subpath}' has no '@sqlinbox/source' condition to document`);
      entryPoints[subpath === '.' ? 'unshift' : 'push'](join(dir, entry.name, source));
    }
    if (entryPoints.length === 0) throw new Error(`${pkg.name}: no exports to document`);
    result.push({ name: pkg.name, dir: join(dir, entry.name), entryPoints });
  }
  return result.sort((a, b) => a.name.localeCompare(b.name));
}

/** The user docs under docs/ (docs/dev excluded): the site's pages besides the READMEs. */
export function docPages(root: string = repoRoot): string[] {
  const pages: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (relative(root, path) !== join('docs', 'dev')) walk(path);
      } else if (entry.name.endsWith('.md')) pages.push(path);
    }
  };
  walk(join(root, 'docs'));
  return pages.sort();
}

/**
 * The web address of the repository's files, from the root package.json `repository` field:
 * `https://github.com/owner/name/blob/main/`. The package READMEs (which npm shows away from the
 * repository) link the docs with it, and show images by `…/raw/main/…`; the site turns such a link
 * back into its own page or a copy of the image.
 */
export function repositoryFilesUrl(root: string = repoRoot): string {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    repository?: string | { url?: string };
  };
  const url = typeof pkg.repository === 'string' ? pkg.repository : pkg.repository?.url;
  const match = url === undefined ? null : /github\.com[/:]([^/]+\/[^/.]+)/.exec(url);
  if (!match) throw new Error('the root package.json has no GitHub repository url');
  return `https://github.com/${match[1]}/blob/main/`;
}

/**
 * The repository file a web address names (`…/blob/main/docs/x.md#a`, `…/raw/main/docs/y.png`):
 * its path from the root and its anchor; undefined for any other address.
 */
export function repositoryFile(
  url: string,
  root: string = repoRoot,
): { path: string; anchor: string | undefined; raw: boolean } | undefined {
  const blob = repositoryFilesUrl(root);
  const raw = blob.replace(/blob\/main\/$/, 'raw/main/');
  const base = url.startsWith(blob) ? blob : url.startsWith(raw) ? raw : undefined;
  if (base === undefined) return undefined;
  const [path = '', anchor] = decodeURIComponent(url.slice(base.length)).split('#');
  return { path, anchor, raw: base === raw };
}

/**
 * Types that an exported signature names but its package does not export (helpers of the table
 * builder's typing, a harness's internals): the reference shows their names unlinked. Each entry must
 * still be referenced (TypeDoc warns on an unused one), so the list shrinks as packages export them.
 */
export const intentionallyNotExported = [
  '@sqlinbox/conformance/src/harness.ts:Table',
  '@sqlinbox/conformance/src/netns.ts:SlowLink',
  '@sqlinbox/core/src/inbox.ts:FormOf',
  '@sqlinbox/core/src/inbox.ts:Has',
  '@sqlinbox/core/src/inbox.ts:FormRule',
  '@sqlinbox/core/src/logger.ts:LEVELS',
  '@sqlinbox/core/src/table-builder.ts:BuilderBase',
  '@sqlinbox/core/src/table-builder.ts:AdvisoryMethod',
  '@sqlinbox/core/src/table-builder.ts:LeaseMethod',
  '@sqlinbox/core/src/table-builder.ts:ClockMethod',
  '@sqlinbox/core/src/table-builder.ts:OwnMethod',
  '@sqlinbox/core/src/inbox.ts:ColumnSpec',
  '@sqlinbox/core/src/inbox.ts:PayloadSpec',
  '@sqlinbox/core/src/table-builder.ts:BuilderState',
  '@sqlinbox/core/src/inbox.ts:Checked',
];

export interface BuildResult {
  /** Every warning and error TypeDoc reported (a warning fails the build, as an error does). */
  messages: string[];
  /** Links to the repository's own files that name a file that does not exist. */
  missingRepositoryFiles: string[];
  /** The HTML pages written. */
  pages: number;
}

class CollectingLogger extends Logger {
  readonly messages: string[] = [];
  override log(message: string, level: LogLevel): void {
    super.log(message, level);
    if (level >= LogLevel.Warn) this.messages.push(`${LogLevel[level]}: ${message}`);
  }
}

/**
 * Sets, for each published package that TypeDoc documents in packages mode, its entry points (the
 * sources its exports name) and a tsconfig holding only its src, so no test file is compiled.
 */
class PackageSourcesReader implements OptionsReader {
  readonly order = 90; // before the tsconfig reader (200), which reads the file named here
  readonly name = 'sqlinbox-package-sources';
  readonly supportsPackages = true;
  private readonly packages: PublishedPackage[];
  private readonly tsconfigDir: string;
  private readonly root: string;
  constructor(packages: PublishedPackage[], tsconfigDir: string, root: string) {
    this.packages = packages;
    this.tsconfigDir = tsconfigDir;
    this.root = root;
  }
  read(container: Options, _logger: Logger, cwd: string): void {
    const pkg = this.packages.find((p) => resolve(p.dir) === resolve(cwd));
    if (!pkg) return;
    const tsconfig = join(this.tsconfigDir, `${pkg.name.replace(/[@/]/g, '_')}.json`);
    writeFileSync(
      tsconfig,
      JSON.stringify({ extends: join(this.root, 'tsconfig.base.json'), include: [join(pkg.dir, 'src')] }),
    );
    container.setValue('tsconfig', tsconfig);
    container.setValue('entryPoints', pkg.entryPoints);
    // Each package is validated on its own (packages mode): it gets its own entries of the list.
    container.setValue(
      'intentionallyNotExported',
      intentionallyNotExported.filter((entry) => entry.startsWith(`${pkg.name}/`)),
    );
  }
}

const countPages = (dir: string): number =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.html')).length;

/**
 * Renders the reference and the docs into `out` with TypeDoc. Every warning is collected and counts as
 * a failure: the caller fails when `messages` or `missingRepositoryFiles` is not empty.
 */
export async function buildSite(
  out: string,
  options: { root?: string; packages?: PublishedPackage[]; pages?: string[]; readme?: string } = {},
): Promise<BuildResult> {
  const root = options.root ?? repoRoot;
  const packages = options.packages ?? publishedPackages(root);
  const filesUrl = repositoryFilesUrl(root);
  // Under node_modules, so the compiler finds @types/node walking up from each generated tsconfig.
  const cache = join(root, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  const tsconfigDir = mkdtempSync(join(cache, 'sqlinbox-typedoc-'));
  // Options that hold for the whole site and, in packages mode, for each package's own conversion
  // (TypeDoc gives a package only its `packageOptions` and what the readers set).
  const shared: TypeDocOptions = {
    // `pnpm typecheck` type-checks the sources; TypeDoc only reads them.
    skipErrorChecking: true,
    // Every exported symbol and member carries a doc comment (`notDocumented`), the reference's own
    // text; like every other TypeDoc warning, a missing one fails the build.
    validation: {
      notDocumented: true,
      notExported: true,
      invalidLink: true,
      invalidPath: true,
      rewrittenLink: true,
    },
    // Source links into the repository, for the files git tracks (never fetched: the link check
    // lists them; the build checks that each names a file that exists).
    sourceLinkTemplate: `${filesUrl}{path}#L{line}`,
    gitRevision: 'main',
    excludePrivate: true,
  };
  const typedocOptions: TypeDocOptions = {
    ...shared,
    packageOptions: shared,
    treatWarningsAsErrors: true,
    name: 'sqlinbox',
    entryPointStrategy: 'packages',
    entryPoints: packages.map((p) => p.dir),
    readme: options.readme ?? join(root, 'README.md'),
    projectDocuments: options.pages ?? docPages(root),
    out,
    cleanOutputDir: true,
    highlightLanguages: [
      'bash',
      'diff',
      'javascript',
      'json',
      'shellscript',
      'sh',
      'sql',
      'text',
      'ts',
      'typescript',
    ],
    // Bare URLs become links, as on GitHub; a bare file name (`BENCH.md`) stays text.
    markdownItLoader: (parser) => {
      parser.linkify.set({ fuzzyLink: false });
    },
    githubPages: false,
    logLevel: 'Warn',
  };
  const logger = new CollectingLogger();
  const missingRepositoryFiles: string[] = [];
  try {
    const app = await Application.bootstrap(typedocOptions, [
      new PackageSourcesReader(packages, tsconfigDir, root),
      new TSConfigReader(),
    ]);
    app.logger = logger;
    // A document's title is its first heading, not its file name.
    app.converter.on(Converter.EVENT_CREATE_DOCUMENT, (_context, document: DocumentReflection) => {
      const first = document.content.map((part) => part.text).join('');
      const title = /^#\s+(.+)$/m.exec(first)?.[1];
      if (title) document.name = title.replace(/`/g, '');
    });
    // A document's page is named after its file (docs/forms/lease.md: docs/forms/lease.html).
    const docsDir = join(root, 'docs');
    app.renderer.defineRouter(
      'sqlinbox',
      class extends KindRouter {
        protected override getIdealBaseName(reflection: Reflection): string {
          const path = reflection.isDocument()
            ? reflection.project.files.getReflectionPath(reflection)
            : undefined;
          if (path === undefined || relative(docsDir, path).startsWith('..'))
            return super.getIdealBaseName(reflection);
          return join('docs', relative(docsDir, path))
            .replace(/README\.md$/, 'index')
            .replace(/\.md$/, '');
        }
      },
    );
    app.options.setValue('router', 'sqlinbox');
    // A link to the repository's own file (as the package READMEs write them for npm) becomes a link to
    // the site's page for that file when the site has one, an image a copy in the site; a link to a
    // file that does not exist fails. A relative link to a markdown file that is no page of the site
    // (docs/dev) goes to the repository instead of a raw copy of the file.
    app.renderer.on(PageEvent.END, (page: PageEvent) => {
      if (page.contents === undefined) return;
      const project = page.project as ProjectReflection;
      const media = project.files.getNameToAbsoluteMap();
      page.contents = page.contents.replace(
        /(href|src)="([^"]*)"/g,
        (whole, attribute: string, value: string) => {
          const copied = /^(?:\.\.\/)*media\/([^"#/]+\.md)(#.*)?$/.exec(value);
          const source = copied?.[1] === undefined ? undefined : media.get(copied[1]);
          if (source !== undefined && !relative(root, source).startsWith('..'))
            return `${attribute}="${filesUrl}${relative(root, source)}${copied?.[2] ?? ''}"`;
          const file = repositoryFile(value.replace(/&amp;/g, '&'), root);
          if (file === undefined) return whole;
          const absolute = join(root, file.path);
          if (!existsSync(absolute)) {
            missingRepositoryFiles.push(`${page.url}: ${value}`);
            return whole;
          }
          if (!statSync(absolute).isFile()) return whole;
          if (file.raw || attribute === 'src') {
            const copy = posix.join('media', 'repository', file.path);
            mkdirSync(dirname(join(out, copy)), { recursive: true });
            copyFileSync(absolute, join(out, copy));
            return `${attribute}="${posix.relative(posix.dirname(page.url), copy)}"`;
          }
          if (!file.path.endsWith('.md')) return whole;
          const { target } = project.files.registerAbsolute(absolute.replace(/\\/g, '/') as never);
          const reflection = project.files.resolve(target, project);
          if (reflection === undefined || typeof reflection === 'string') return whole;
          const router = app.renderer.router!;
          // The project's README is the index page (the project's own page is the modules list).
          const to = reflection.isProject()
            ? router.baseRelativeUrl(page.model, 'index.html')
            : router.relativeUrl(page.model, reflection);
          return `${attribute}="${to}${file.anchor ? `#${file.anchor}` : ''}"`;
        },
      );
    });
    const project = await app.convert();
    if (project) {
      app.validate(project);
      if (!logger.hasErrors()) await app.generateOutputs(project);
    } else if (logger.messages.length === 0) {
      logger.messages.push('Error: TypeDoc converted nothing');
    }
  } finally {
    rmSync(tsconfigDir, { recursive: true, force: true });
  }
  return {
    messages: logger.messages,
    missingRepositoryFiles,
    pages: existsSync(out) ? countPages(out) : 0,
  };
}

export interface CheckResult {
  /** The distinct pages and assets fetched inside the site. */
  checked: number;
  /** The internal `<a href>` links with an anchor (`page.html#x`, `#x`), each page's counted apart. */
  anchors: number;
  /** Internal links or anchors that lead nowhere, `page -> link`. */
  broken: string[];
  /** External links, listed and never fetched. */
  external: string[];
}

/**
 * Crawls every page of the built site through a local static server, following every internal link
 * and checking every anchor; external links are skipped (no network), and returned as a list.
 */
export async function checkSite(out: string): Promise<CheckResult> {
  const external = new Set<string>();
  const checker = new LinkChecker();
  const result = await checker.check({
    // Every page, not only those reached from the index: TypeDoc's navigation is built by a script.
    path: '**/*.html',
    serverRoot: out,
    recurse: true,
    checkFragments: true,
    concurrency: 20,
    linksToSkip: async (link) => {
      const local = /^https?:\/\/(localhost|127\.0\.0\.1)[:/]/.test(link);
      if (!local && /^[a-z][a-z0-9+.-]*:/i.test(link)) external.add(link);
      return !local;
    },
  });
  const broken = result.links
    .filter((link: LinkResult) => link.state === LinkState.BROKEN)
    .map((link) => {
      const strip = (url: string | undefined): string => (url ?? '').replace(/^https?:\/\/[^/]+\//, '');
      return `${strip(link.parent)} -> ${strip(link.url)} (${link.status ?? 'no status'})`;
    });
  let anchors = 0;
  for (const file of readdirSync(out, { recursive: true, encoding: 'utf8' })) {
    if (!file.endsWith('.html')) continue;
    const hrefs = readFileSync(join(out, file), 'utf8').matchAll(/<a\s[^>]*href="([^"]*#[^"]*)"/g);
    anchors += new Set([...hrefs].map((m) => m[1]).filter((h) => !/^[a-z][a-z0-9+.-]*:/i.test(h ?? ''))).size;
  }
  return {
    checked: result.links.filter((link: LinkResult) => link.state !== LinkState.SKIPPED).length,
    anchors,
    broken,
    external: [...external].sort(),
  };
}

/** Writes a text file, creating its folder (for the tests' planted fixtures). */
export function writeFile(path: string, text: string): void {
  mkdirSync(resolve(path, '..'), { recursive: true });
  writeFileSync(path, text);
}
