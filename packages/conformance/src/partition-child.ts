/**
 * The partition scenarios' child process: a broker that runs inside a network namespace of its own
 * and reaches the database through a link the parent cuts and slows. Its input arrives in
 * SQLINBOX_CHILD as JSON; the adapter module reads the server's address from
 * SQLINBOX_CHILD_DB_HOST and SQLINBOX_CHILD_DB_PORT.
 *
 * It subscribes to one lease table (transactional with `transactional: true`). Each handler call
 * writes `{ row_id, who: 'child' }` into the ledger table (through `ctx.tx` in transactional mode,
 * else through the pool), tells the parent `in-handler`, and with `hold: true` waits for the
 * parent's `{ type: 'release', id }` before it returns (an ack). It reports the broker's events
 * (`claimed`, `settled`, `leaseLost`, `settlementError` with the error's name and code) and
 * answers `{ type: 'held?' }` with
 * the connections the broker holds, and shuts down on `{ type: 'stop' }`.
 */
import { pathToFileURL } from 'node:url';
import { Broker, inbox, queue, silentLogger } from '@sqlinbox/core';

interface ChildInput {
  module: string;
  table: Record<string, unknown>;
  ledger: Record<string, unknown>;
  lease: string;
  workers?: number;
  transactional?: boolean;
  hold?: boolean;
}

async function main(): Promise<void> {
  const input = JSON.parse(process.env.SQLINBOX_CHILD ?? '{}') as ChildInput;
  const mod = (await import(pathToFileURL(input.module).href)) as { default: (o?: object) => Promise<any> };
  const adapter = await mod.default({ poolSize: 4 });
  const desc = inbox(input.table as never);
  const ledger = inbox(input.ledger as never) as any;
  const t0 = Date.now();
  const send = (m: Record<string, unknown>) => process.send?.({ ...m, at: Date.now() - t0 });
  const log = (level: string) => (msg: string, fields?: Record<string, unknown>) =>
    send({ type: 'log', level, msg, error: fields?.error === undefined ? undefined : String(fields.error) });
  const logger = { ...silentLogger, warn: log('warn'), error: log('error') };
  const broker = new Broker(adapter, { logger, pollInterval: 50, lease: input.lease as never });
  broker.on('claimed', (e) => send({ type: 'claimed', id: String(e.id) }));
  broker.on('settled', (e) => send({ type: 'settled', id: String(e.id), outcome: e.outcome }));
  broker.on('leaseLost', (e) => send({ type: 'leaseLost', id: String(e.id) }));
  broker.on('settlementError', (e) => {
    const err = e.error as { name?: string; code?: string; message?: string };
    send({
      type: 'settlementError',
      id: String(e.id),
      name: err?.name,
      code: err?.code,
      message: err?.message,
    });
  });

  const waiting = new Map<string, () => void>();
  const released = new Set<string>();
  process.on('message', async (m: any) => {
    if (m?.type === 'release') {
      released.add(m.id);
      waiting.get(m.id)?.();
    }
    // The connections the broker holds now (its claims and deliveries).
    if (m?.type === 'held?') send({ type: 'held', held: broker.poolUse.held });
    if (m?.type === 'stop') {
      await broker.shutdown({ timeout: 10_000 }); // closes the adapter too
      send({ type: 'stopped' });
      process.exit(0);
    }
  });

  let q = queue(desc as never).workers(input.workers ?? 2) as any;
  if (input.transactional) q = q.transactional();
  broker.subscribe(q, async (_m: unknown, ctx: { id: unknown; attempt: number; tx?: unknown }) => {
    const id = String(ctx.id);
    await broker.publish(
      ledger,
      {},
      {
        columns: { row_id: id, who: 'child' },
        ...(input.transactional ? { tx: ctx.tx as never } : {}),
      },
    );
    send({ type: 'in-handler', id, attempt: ctx.attempt });
    if (input.hold && !released.has(id)) await new Promise<void>((r) => waiting.set(id, r));
  });
  await broker.start();
  send({ type: 'ready' });
}

main().catch((err: unknown) => {
  process.send?.({ type: 'error', message: err instanceof Error ? err.message : String(err) });
  process.exit(1);
});
