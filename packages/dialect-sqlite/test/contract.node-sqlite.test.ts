/**
 * The per-method contract on Node's built-in node:sqlite, through a target written as an author
 * outside this repository would write one: `defineTarget` around the package's `sqlite()`, and no
 * `childModule` (the contract opens the database in no other process).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineTarget, runContract } from '@sqlinbox/conformance';
import { afterAll } from 'vitest';
import { sqlite } from '../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'sqlinbox-contract-'));
const file = join(dir, 'contract.db');
const target = defineTarget({
  name: 'sqlite (node:sqlite)',
  adapter: ({ poolSize, serverVersion }) =>
    sqlite({ filename: file, connections: poolSize }, { serverVersion }),
  tooOldVersion: '3.30.0',
  close: async () => rmSync(dir, { recursive: true, force: true }),
});
afterAll(() => target.close?.());
await runContract(target);
