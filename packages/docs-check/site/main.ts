// `pnpm docs`: builds the site into site/ at the repository root, then checks its links. Exits 1 on a
// TypeDoc warning or error, a link to a missing repository file, or a broken internal link or anchor.
import { join } from 'node:path';
import { buildSite, checkSite, repoRoot } from './site.ts';

const out = join(repoRoot, 'site');
const started = Date.now();
const built = await buildSite(out);
const seconds = (): string => ((Date.now() - started) / 1000).toFixed(1);
for (const message of built.messages) console.error(message);
for (const link of built.missingRepositoryFiles) console.error(`links a missing repository file: ${link}`);
if (built.messages.length > 0 || built.missingRepositoryFiles.length > 0) {
  console.error(`docs: the build failed (${built.messages.length} TypeDoc messages)`);
  process.exit(1);
}
console.log(`docs: ${built.pages} pages built into ${out} in ${seconds()} s`);
const checked = await checkSite(out);
for (const link of checked.broken) console.error(`broken: ${link}`);
if (process.argv.includes('--list-external'))
  for (const url of checked.external) console.log(`external: ${url}`);
console.log(
  `docs: ${checked.checked} pages and assets and ${checked.anchors} anchor links checked, ` +
    `${checked.broken.length} broken; ` +
    `${checked.external.length} external links listed, not fetched (--list-external prints them); ${seconds()} s`,
);
if (checked.broken.length > 0) process.exit(1);
