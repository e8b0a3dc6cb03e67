import { runContract } from '@sqlinbox/conformance';
import { afterAll, test } from 'vitest';
import { sqlite3Missing, sqlite3Target } from './target.js';

const missing = await sqlite3Missing();
if (missing === undefined) {
  const target = await sqlite3Target();
  afterAll(() => target.close?.());
  await runContract(target);
} else {
  test.skip(`R-USER-8 the per-method contract on sqlite3: skipped, ${missing}`, () => {});
}
