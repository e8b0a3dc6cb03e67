// A child process for the targets' own test: opens the adapter of the module in LOCK_CHILD_MODULE,
// locks one key of the table in LOCK_CHILD_TABLE, tells the parent, and waits to be killed.
import { pathToFileURL } from 'node:url';

const mod = await import(pathToFileURL(process.env.LOCK_CHILD_MODULE).href);
const adapter = await mod.default({ poolSize: 2 });
const conn = await adapter.pool.acquire();
const ops = adapter.dialect.prepare(JSON.parse(process.env.LOCK_CHILD_TABLE));
process.send({ locked: await ops.advisory.lock(conn, process.env.LOCK_CHILD_KEY) });
await new Promise(() => {});
