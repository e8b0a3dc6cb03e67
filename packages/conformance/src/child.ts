/**
 * A crash-scenario child process: opens the target's adapter, claims rows of one table and
 * hangs in its handler after telling the parent what it holds, until the parent kills it with
 * SIGKILL. Its input arrives in the SQLINBOX_CHILD environment variable as JSON.
 */
import { pathToFileURL } from 'node:url';
import { Broker, inbox, queue, silentLogger } from '@sqlinbox/core';

interface ChildInput {
  module: string;
  table: Record<string, unknown>;
  lease?: string;
  workers?: number;
}

async function main(): Promise<void> {
  const input = JSON.parse(process.env.SQLINBOX_CHILD ?? '{}') as ChildInput;
  const mod = (await import(pathToFileURL(input.module).href)) as { default: () => Promise<any> };
  const adapter = await mod.default();
  const desc = inbox(input.table as never);
  const broker = new Broker(adapter, {
    logger: silentLogger,
    pollInterval: 50,
    ...(input.lease ? { lease: input.lease as never } : {}),
  });
  let q = queue(desc as never) as any;
  if (input.workers) q = q.workers(input.workers);
  broker.subscribe(q, async (_m: unknown, ctx: { id: unknown; attempt: number }) => {
    process.send?.({ type: 'in-handler', id: String(ctx.id), attempt: ctx.attempt });
    await new Promise(() => {}); // hangs until killed
  });
  await broker.start();
}

main().catch((err: unknown) => {
  process.send?.({ type: 'error', message: err instanceof Error ? err.message : String(err) });
  process.exit(1);
});
