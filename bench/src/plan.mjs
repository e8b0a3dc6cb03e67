/**
 * What a run measures. Quick: small backlogs, one repetition, workers 1 and 32, W1-W4 shortened.
 * Full: BENCH.md's W1-W5 at 50k jobs, workers 1, 8 and 32, three repetitions.
 */

/** pg-boss's `work()` waits its polling interval (0.5 s) after every fetch, found jobs or not. */
const bossWorkCap = (workers, batch, seconds) => Math.max(50, Math.round(workers * batch * 2 * seconds));

export function plan(mode, scale = 1) {
  const full = mode === 'full';
  const jobs = Math.max(200, Math.round((full ? 50_000 : 3_000) * scale));
  // The advisory form runs several round trips per job: a smaller backlog keeps quick mode quick.
  const advisoryJobs = full ? jobs : Math.max(200, Math.round(jobs * 0.3));
  const workerCounts = full ? [1, 8, 32] : [8, 32];
  // The raw loops: every worker count in full mode, the ratios' 32 clients in quick mode.
  const rawWorkers = full ? workerCounts : [32];
  const ks = [1, 50];
  const cases = [];
  const add = (c) =>
    cases.push({ workload: 'drain', jobs: c.form === 'advisory' ? advisoryJobs : jobs, ...c });

  // Flow control: a priority table (priorities n % 10) and a keyed table (a distinct key per row)
  // drained right after the plain lease table's case of the same workers, whose figure they are read against.
  const flowWorkers = full ? [8, 32] : [32];
  const flow = (db) => {
    for (const w of flowWorkers)
      for (const f of ['priority', 'keyed'])
        add({ db, kind: 'sqlinbox', form: 'lease', flow: f, workers: w });
  };
  // FIFO at speed (R-LOAD-6): one group, and 20 groups, drained by 8 workers at the broker's default
  // poll interval, right after the plain table of the same form and workers. Sized for the engine
  // that claims a group's next row as its predecessor settles; an engine that waits for a poll per
  // row takes 500 s for the full run's one group of 500.
  const fifo = (db, form) => {
    if (!full && form !== 'lease') return;
    for (const groups of [1, 20]) {
      const jobs = groups === 1 ? (full ? 500 : 20) : full ? 4_000 : 200;
      cases.push({
        workload: 'drain',
        db,
        kind: 'sqlinbox',
        form,
        flow: 'fifo',
        groups,
        workers: 8,
        jobs,
        pollInterval: 1000,
      });
    }
  };
  // Fan-out/fan-in (docs/flows.md): one parent over N children (100,000 in full mode), published
  // with Flows.publish, drained by 32 workers in the lease form right after the plain lease table
  // at 32 workers, whose figure it is read against; the jobs count the parent.
  const fanJobs = (full ? 100_000 : jobs) + 1;
  const fanin = (db) =>
    add({ db, kind: 'sqlinbox', form: 'lease', flow: 'fanin', workers: 32, jobs: fanJobs });
  // The failure path (the job lifecycle): every row's first delivery throws and its retry acks, at
  // once (backoff(false)), on a table with the failure record (last error, class, failed at):
  // twice the deliveries of the plain drain beside it, and a retry settlement with its record per row.
  const failOnce = (db) => add({ db, kind: 'sqlinbox', form: 'lease', flow: 'failonce', workers: 32 });
  // PostgreSQL: sqlinbox's three forms, the raw loops, the peers.
  for (const form of ['rowlock', 'lease', 'advisory']) {
    for (const w of workerCounts) add({ db: 'pg', kind: 'sqlinbox', form, workers: w });
    if (form === 'lease') fanin('pg');
    if (form === 'lease') failOnce('pg');
    if (form === 'lease') flow('pg');
    if (form !== 'advisory') fifo('pg', form);
    for (const w of rawWorkers) for (const k of ks) add({ db: 'pg', kind: 'raw', form, workers: w, k });
  }
  add({ db: 'pg', kind: 'sqlinbox', form: 'lease', workers: 32, claimBatch: 1 });
  // Tuned against tuned: graphile-worker's tuned run keeps a local queue; sqlinbox's prefetch(n)
  // holds n rows claimed beyond the workers (see docs/forms/lease.md).
  add({ db: 'pg', kind: 'sqlinbox', form: 'lease', workers: 32, prefetch: 64 });
  // The ceiling of the lease form: the raw loop settling each claim's rows in one DELETE.
  add({ db: 'pg', kind: 'raw', form: 'lease', workers: 32, k: 50, batchDelete: true });
  // The limit (R-LOAD-4): the raw loops at the batch size the engine itself reached in this round
  // (its rows per claim, read from the sqlinbox drain of the same form and workers that ran just
  // before), one settlement statement per claim, prepared.
  add({
    db: 'pg',
    kind: 'raw',
    form: 'lease',
    workers: 32,
    k: 'engine',
    batchDelete: true,
    engineOf: 'drain-pg-sqlinbox-lease-w32',
  });
  add({
    db: 'pg',
    kind: 'raw',
    form: 'advisory',
    workers: 32,
    k: 'engine',
    engineOf: 'drain-pg-sqlinbox-advisory-w32',
  });
  for (const w of workerCounts) {
    add({ db: 'pg', kind: 'graphile', variant: 'default', workers: w });
    add({ db: 'pg', kind: 'graphile', variant: 'tuned', workers: w });
    for (const batch of [1, 100]) {
      const capped = Math.min(jobs, bossWorkCap(w, batch, full ? 10 : 2));
      add({ db: 'pg', kind: 'pgboss', variant: `work ${batch}`, batch, workers: w, jobs: capped });
    }
    // pg-boss 12's own answer to a backlog: fetch again at once while batches come back full.
    add({ db: 'pg', kind: 'pgboss', variant: 'work 100 burst', batch: 100, workers: w });
    add({ db: 'pg', kind: 'pgboss', variant: 'fetch 100', batch: 100, workers: w });
    // Run only where the bullmq package can be loaded (see run-peers.mjs).
    add({ db: 'pg', kind: 'bullmq', variant: 'defaults', workers: w });
  }
  // BullMQ's FlowProducer on its PostgreSQL backend: the same fan-in, after its plain drain. In
  // full mode over 10,000 children: its FlowProducer.add of one parent over 100,000 had not
  // returned after 11 minutes here (bullmq 6.7.0, one add_flow statement).
  add({
    db: 'pg',
    kind: 'bullmq',
    variant: 'defaults',
    flow: 'fanin',
    workers: 32,
    jobs: Math.min(fanJobs, 10_001),
  });
  // MariaDB.
  for (const form of ['rowlock', 'lease', 'advisory']) {
    for (const w of workerCounts) add({ db: 'mysql', kind: 'sqlinbox', form, workers: w });
    if (form === 'lease') fanin('mysql');
    if (form === 'lease') failOnce('mysql');
    if (form === 'lease') flow('mysql');
    if (form !== 'advisory') fifo('mysql', form);
    for (const w of rawWorkers) for (const k of ks) add({ db: 'mysql', kind: 'raw', form, workers: w, k });
  }
  add({ db: 'mysql', kind: 'sqlinbox', form: 'lease', workers: 32, prefetch: 64 });
  add({ db: 'mysql', kind: 'raw', form: 'lease', workers: 32, k: 50, batchDelete: true });
  add({
    db: 'mysql',
    kind: 'raw',
    form: 'lease',
    workers: 32,
    k: 'engine',
    batchDelete: true,
    engineOf: 'drain-mysql-sqlinbox-lease-w32',
  });
  add({
    db: 'mysql',
    kind: 'raw',
    form: 'advisory',
    workers: 32,
    k: 'engine',
    engineOf: 'drain-mysql-sqlinbox-advisory-w32',
  });
  // SQLite: lease and advisory; the raw loop is one synchronous loop.
  for (const form of ['lease', 'advisory']) {
    for (const w of workerCounts) add({ db: 'sqlite', kind: 'sqlinbox', form, workers: w });
    if (form === 'lease') fanin('sqlite');
    if (form === 'lease') failOnce('sqlite');
    for (const k of ks) add({ db: 'sqlite', kind: 'raw', form, workers: 1, k });
  }
  add({ db: 'sqlite', kind: 'raw', form: 'lease', workers: 1, k: 50, batchDelete: true });
  add({
    db: 'sqlite',
    kind: 'raw',
    form: 'lease',
    workers: 1,
    k: 'engine',
    batchDelete: true,
    engineOf: 'drain-sqlite-sqlinbox-lease-w32',
  });

  // W3: latency at each rate, PostgreSQL, 8 workers, after a warm-up at the same rate whose jobs
  // are reported apart (start-up: connections opening on both sides, the JIT compiling; at 1,000
  // jobs/s a consumer that opens a connection per delivery lags its first few hundred jobs).
  const rates = full ? [10, 100, 1000] : [100];
  const seconds = full ? Math.max(2, Math.round(30 * scale)) : 4;
  const warmup = full ? 2 : 1;
  for (const rate of rates) {
    const lat = { workload: 'latency', db: 'pg', workers: 8, rate, seconds, warmup, jobs: 0 };
    // Each form: the row lock form starts a handler inside its claim's transaction, before any
    // commit; the lease form after its claim's commit. The advisory form drains about 1,000 jobs/s
    // at 8 workers here, so at 1,000 jobs/s it would measure its own backlog, not a wake-up.
    for (const form of ['lease', 'rowlock', 'advisory'])
      if (form !== 'advisory' || rate <= 100) cases.push({ ...lat, kind: 'sqlinbox', form });
    // The floor: the same statements from a bare loop (a notifying insert per publish).
    cases.push({ ...lat, kind: 'raw', form: 'lease', k: 50 });
    // The machine's own floor at this rate: the publish statement alone, nothing consuming, and a
    // bare round trip. No enqueue-to-start is shorter than the first plus a claim.
    cases.push({ ...lat, workers: 0, kind: 'raw', form: 'probe' });
    cases.push({ ...lat, kind: 'graphile', variant: 'default' });
    cases.push({ ...lat, kind: 'graphile', variant: 'tuned' });
    cases.push({ ...lat, kind: 'pgboss', variant: 'work 100', batch: 100 });
    cases.push({ ...lat, kind: 'bullmq', variant: 'defaults' });
  }

  // W4: memory while draining a backlog (PostgreSQL lease, 32 workers; peers beside it in full).
  // The full run drains the backlogs BENCH.md names whatever the scale: the claim is about a
  // 200,000-row backlog against a 20,000-row one, and young-generation growth depends on the length.
  // sqlinbox alone also drains 1,000,000 rows, to show where the growth stops.
  for (const backlog of full ? [20_000, 200_000, 1_000_000] : [20_000]) {
    const n = full ? backlog : Math.round(backlog * scale);
    const mem = { workload: 'drain', memory: backlog, db: 'pg', workers: 32, jobs: n };
    cases.push({ ...mem, kind: 'sqlinbox', form: 'lease' });
    if (full && backlog <= 200_000) {
      cases.push({ ...mem, kind: 'graphile', variant: 'tuned' });
      cases.push({ ...mem, kind: 'pgboss', variant: 'fetch 100', batch: 100 });
    }
  }

  // W1: enqueue.
  const singles = Math.max(200, Math.round((full ? 50_000 : 2_000) * scale));
  const bulk = Math.max(1000, Math.round((full ? 50_000 : 20_000) * scale));
  for (const db of ['pg', 'mysql', 'sqlite']) {
    const e = { workload: 'enqueue', db, kind: 'sqlinbox', form: 'lease', prefill: 0 };
    cases.push({ ...e, jobs: singles, concurrency: 1 });
    cases.push({ ...e, jobs: singles, concurrency: 8 });
    cases.push({ ...e, jobs: bulk, chunk: 1000 });
    // The keyed table: publishMany without keys, and with a distinct key per message.
    if (db !== 'sqlite') {
      cases.push({ ...e, flow: 'keyed', jobs: bulk, chunk: 1000 });
      cases.push({ ...e, flow: 'keyed', keys: true, jobs: bulk, chunk: 1000 });
    }
    if (full) cases.push({ ...e, jobs: bulk, chunk: 10_000 });
  }

  // W5: recovery after SIGKILL, 4 workers holding a row each (full; PostgreSQL only in quick).
  for (const db of full ? ['pg', 'mysql', 'sqlite'] : ['pg']) {
    for (const form of ['rowlock', 'lease', 'advisory']) {
      if (db === 'sqlite' && form !== 'lease') continue; // no row lock; advisory keys live in one process
      cases.push({ workload: 'recovery', db, kind: 'sqlinbox', form, workers: 4, jobs: 4, lease: '2s' });
    }
  }

  // W6: sustained load on the bench's own servers (sustained.mjs), once per run. Every form of
  // sqlinbox on PostgreSQL and MariaDB with plain-SQL producers, the lease form also with publish,
  // graphile-worker tuned and pg-boss on the same PostgreSQL, SQLite's lease form with three
  // consumer processes. Quick mode: the lease form and the peers on PostgreSQL, the lease form on
  // MariaDB and SQLite, for seconds.
  const w6 = (c) => cases.push({ workload: 'sustained', workers: 8, consumers: 1, ...c });
  const letters = full ? ['a', 'b', 'c', 'd', 'e'] : ['a', 'd', 'c'];
  const w6Systems = [
    { db: 'pg', kind: 'sqlinbox', form: 'lease', producer: 'sql' },
    ...(full
      ? [
          { db: 'pg', kind: 'sqlinbox', form: 'lease', producer: 'publish' },
          { db: 'pg', kind: 'sqlinbox', form: 'rowlock', producer: 'sql' },
          { db: 'pg', kind: 'sqlinbox', form: 'advisory', producer: 'sql' },
        ]
      : []),
    { db: 'pg', kind: 'graphile', variant: 'tuned', producer: 'publish' },
    { db: 'pg', kind: 'pgboss', variant: 'work 100 burst', batch: 100, producer: 'publish' },
    { db: 'mysql', kind: 'sqlinbox', form: 'lease', producer: 'sql' },
    ...(full
      ? [
          { db: 'mysql', kind: 'sqlinbox', form: 'rowlock', producer: 'sql' },
          { db: 'mysql', kind: 'sqlinbox', form: 'advisory', producer: 'sql' },
        ]
      : []),
    { db: 'sqlite', kind: 'sqlinbox', form: 'lease', producer: 'sql', consumers: 3 },
  ];
  for (const letter of letters)
    for (const sys of w6Systems) {
      // Quick mode: every system's (a), and (c), (d) for sqlinbox's lease form on PostgreSQL.
      const lead =
        sys.db === 'pg' && sys.kind === 'sqlinbox' && sys.form === 'lease' && sys.producer === 'sql';
      if (!full && letter !== 'a' && !lead) continue;
      // The hot key needs per-key concurrency: sqlinbox's lease form, graphile-worker's named queues.
      if (letter === 'e' && !(sys.form === 'lease' || sys.kind === 'graphile')) continue;
      w6({ ...sys, case: letter, ...(letter === 'e' ? { keys: true } : {}) });
    }

  cases.forEach((c, i) => {
    c.id = caseId(c);
    c.file = `c${i}`;
  });
  return { cases, repetitions: full ? 3 : 1, jobs, workerCounts };
}

export function caseId(c) {
  if (c.workload === 'sustained')
    return [
      'sustained',
      c.case,
      c.db,
      c.kind,
      c.form,
      c.variant?.replaceAll(' ', ''),
      c.kind === 'sqlinbox' ? c.producer : undefined,
    ]
      .filter(Boolean)
      .join('-');
  const parts = [c.workload === 'drain' && c.memory ? `memory${c.memory}` : c.workload, c.db, c.kind];
  if (c.form) parts.push(c.form);
  if (c.flow) parts.push(c.flow === 'fifo' ? `fifo${c.groups}` : c.flow);
  if (c.keys) parts.push('keys');
  if (c.variant) parts.push(c.variant.replaceAll(' ', ''));
  if (c.claimBatch) parts.push(`cb${c.claimBatch}`);
  if (c.prefetch) parts.push(`pf${c.prefetch}`);
  if (c.batchDelete) parts.push('batchdelete');
  if (c.k) parts.push(`k${c.k}`);
  if (c.workers) parts.push(`w${c.workers}`);
  if (c.rate) parts.push(`r${c.rate}`);
  if (c.concurrency) parts.push(`c${c.concurrency}`);
  if (c.chunk) parts.push(`chunk${c.chunk}`);
  return parts.join('-');
}
