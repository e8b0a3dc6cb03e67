/**
 * The conformance suite's child process. Its input arrives in SQLINBOX_CHILD as JSON.
 *
 * - `mode: 'hang'` (crash scenarios): claims rows of one table (as a relay with `relay: true`) and
 *   hangs in its handler after telling the parent what it holds, until the parent kills it with
 *   SIGKILL.
 * - `mode: 'ledger'` (many workers across processes): acks every row after writing its id into a
 *   ledger table with a UNIQUE row id, counting ledger conflicts (a row settled twice), until the
 *   parent sends `stop`; then it shuts down and reports its counts.
 * - `mode: 'concurrency'` (per-key concurrency across processes): handles every row by sleeping
 *   `sleepMs`, until the parent sends `stop`; then it shuts down and reports the ids it handled.
 * - `mode: 'schedule'` (schedules across processes): runs one schedule into the table, each row's
 *   payload naming its tick and this process, until the parent sends `stop`; then it shuts down
 *   and reports the ticks it published and the instant its shutdown resolved.
 * - `mode: 'rate'` (rate limits across processes): acks every row of a rate-limited table,
 *   noting the instant each row was claimed and each handler started, until the parent sends
 *   `stop`; then it shuts down and reports those instants.
 * - `mode: 'control'` (pause and resume across processes): handles every row by sleeping
 *   `sleepMs`, telling the parent each handler's start and end and each `paused`/`resumed` event
 *   as it happens, until the parent sends `stop`.
 * - `mode: 'steps'` (durable steps, a crash case): runs step `one` of the row it claims (telling
 *   the parent when its fn runs), then says it is in its handler and hangs until killed.
 * - `mode: 'flow'` (flows across processes): handles a flow table's rows: a leaf writes a ledger
 *   row and acks `{ name }`; a parent first reads its children (`flows.children`), then each
 *   child's row (`admin.result`), writes a ledger row with how many it found processed and how
 *   many results it could read, and acks `{ name }`; until the parent kills it or sends `stop`. It
 *   tells the parent (`lost`) of each row it let go of unsettled (a lease lost, a settlement failed).
 */
import { pathToFileURL } from 'node:url';
import { Admin, type AnyTable, Broker, Flows, inbox, Outcome, queue, silentLogger } from '@sqlinbox/core';

interface ChildInput {
  mode?: 'hang' | 'ledger' | 'schedule' | 'concurrency' | 'rate' | 'control' | 'steps' | 'flow';
  /** `mode: 'concurrency'`: how long each handler sleeps, in milliseconds. */
  sleepMs?: number;
  module: string;
  table: Record<string, unknown>;
  ledger?: Record<string, unknown>;
  lease?: string;
  workers?: number;
  poolSize?: number;
  /** Mounts the table as an outbox relay instead of a plain subscription. */
  relay?: boolean;
  /** `mode: 'schedule'`: the schedule to run. */
  schedule?: { name: string; pattern: string; options: Record<string, unknown> };
}

/**
 * Starts the broker and tells the parent it is ready; on the parent's `stop` it shuts the broker
 * down, closes the adapter and reports `report()` with the instant the shutdown resolved.
 */
async function serve(
  broker: Broker,
  adapter: { close?: () => Promise<void> },
  report: () => Record<string, unknown>,
): Promise<void> {
  process.on('message', async (m: any) => {
    if (m?.type !== 'stop') return;
    await broker.shutdown({ timeout: 10_000 });
    const stoppedAt = Date.now();
    await adapter.close?.();
    process.send?.({ type: 'done', ...report(), stoppedAt }, () => process.exit(0));
  });
  await broker.start();
  process.send?.({ type: 'ready' });
}

async function main(): Promise<void> {
  const input = JSON.parse(process.env.SQLINBOX_CHILD ?? '{}') as ChildInput;
  const mod = (await import(pathToFileURL(input.module).href)) as { default: (o?: object) => Promise<any> };
  const adapter = await mod.default(input.poolSize ? { poolSize: input.poolSize } : {});
  const desc = inbox(input.table as never);
  const broker = new Broker(adapter, {
    logger: silentLogger,
    pollInterval: 50,
    ...(input.lease ? { lease: input.lease as never } : {}),
  });
  let q = queue(desc as never) as any;
  if (input.workers) q = q.workers(input.workers);

  if (input.mode === 'schedule' && input.schedule !== undefined) {
    const { name, pattern, options } = input.schedule;
    let published = 0;
    let errors = 0;
    broker.on('scheduled', () => published++);
    broker.on('scheduleError', () => errors++);
    broker.schedule(
      name,
      pattern,
      desc as AnyTable,
      (tick: { at: Date }) => ({ tick: tick.at.toISOString(), pid: process.pid }),
      options,
    );
    await serve(broker, adapter, () => ({ published, errors }));
    return;
  }

  if (input.mode === 'concurrency') {
    const handled: string[] = [];
    let failures = 0;
    broker.on('settlementError', () => failures++);
    broker.subscribe(q, async (_m: unknown, ctx: { id: unknown }) => {
      await new Promise((r) => setTimeout(r, input.sleepMs ?? 20));
      handled.push(String(ctx.id));
    });
    await serve(broker, adapter, () => ({ handled, failures }));
    return;
  }

  if (input.mode === 'rate') {
    const starts: number[] = [];
    const claims: number[] = [];
    broker.on('claimed', () => claims.push(Date.now()));
    broker.subscribe(q, async () => {
      starts.push(Date.now());
    });
    await serve(broker, adapter, () => ({ starts, claims }));
    return;
  }

  if (input.mode === 'control') {
    for (const e of ['paused', 'resumed'] as const) {
      broker.on(e, (x: { scope: string; value: string | null }) =>
        process.send?.({ type: 'notice', event: e, scope: x.scope, value: x.value, at: Date.now() }),
      );
    }
    broker.subscribe(q, async (_m: unknown, ctx: { id: unknown }) => {
      process.send?.({ type: 'start', id: String(ctx.id), at: Date.now() });
      await new Promise((r) => setTimeout(r, input.sleepMs ?? 20));
      process.send?.({ type: 'end', id: String(ctx.id), at: Date.now() });
    });
    await serve(broker, adapter, () => ({}));
    return;
  }

  if (input.mode === 'ledger') {
    const ledger = inbox(input.ledger as never) as any;
    let settled = 0;
    let conflicts = 0;
    let failures = 0;
    broker.on('settlementError', () => failures++);
    broker.subscribe(q, async (_m: unknown, ctx: { id: unknown }) => {
      try {
        await broker.publish(ledger, {}, { columns: { row_id: String(ctx.id) } });
      } catch (err) {
        conflicts++; // the UNIQUE row id refused a second settlement of one row
        throw err;
      }
      settled++;
    });
    await serve(broker, adapter, () => ({ settled, conflicts, failures }));
    return;
  }

  if (input.mode === 'flow') {
    const ledger = inbox(input.ledger as never) as any;
    const flows = new Flows(adapter);
    const admin = new Admin(adapter);
    // A row this process let go of without a kill (its lease ran out under a stalled event loop,
    // its settlement failed, it went back): the parent allows that row a second run.
    for (const e of ['leaseLost', 'settlementError', 'released'] as const)
      broker.on(e, (x: { id: unknown }) => process.send?.({ type: 'lost', id: String(x.id), event: e }));
    broker.subscribe(q, async (m: unknown, ctx: { id: unknown; attempt: number }) => {
      const job = m as { kind: string; name: string };
      const row = {
        row_id: String(ctx.id),
        kind: job.kind,
        pid: String(process.pid),
        attempt: String(ctx.attempt),
      };
      if (job.kind === 'leaf') {
        await broker.publish(ledger, {}, { columns: { ...row, seen: '0', visible: '0', total: '0' } });
        return Outcome.ack({ name: job.name });
      }
      // First the edges (pending ones would mean a start before the children settled), then the rows.
      const kids = await flows.children(desc, ctx.id);
      let seen = 0;
      for (const k of kids) if ((await admin.result(desc, k.id)).state === 'processed') seen++;
      const done = kids.filter((k) => k.state === 'done');
      const visible = done.filter((k) => (k.result as { name?: string } | undefined)?.name === k.name).length;
      await broker.publish(
        ledger,
        {},
        {
          columns: { ...row, seen: String(seen), visible: String(visible), total: String(kids.length) },
        },
      );
      return Outcome.ack({ name: job.name });
    });
    await serve(broker, adapter, () => ({}));
    return;
  }

  if (input.mode === 'steps') {
    broker.subscribe(q, async (_m: unknown, ctx: any) => {
      const one = await ctx.step('one', async () => {
        process.send?.({ type: 'step', name: 'one', pid: process.pid });
        return { pid: process.pid };
      });
      // Step one's record has committed: the parent kills this process now.
      process.send?.({ type: 'in-handler', id: String(ctx.id), attempt: ctx.attempt, one });
      await new Promise(() => {}); // hangs until killed
    });
    await broker.start();
    return;
  }

  const mount = input.relay ? broker.relay.bind(broker) : broker.subscribe.bind(broker);
  mount(q, async (_m: unknown, ctx: { id: unknown; attempt: number }) => {
    process.send?.({ type: 'in-handler', id: String(ctx.id), attempt: ctx.attempt });
    await new Promise(() => {}); // hangs until killed
  });
  await broker.start();
}

main().catch((err: unknown) => {
  process.send?.({ type: 'error', message: err instanceof Error ? err.message : String(err) });
  process.exit(1);
});
