/**
 * W6 in docs/benchmarks.md: a table per case, the issue's ratios with verdicts, and a chart over
 * time per system (docs/benchmarks/w6-<system>.svg: a row per case, panels for the rates, the
 * backlog, the p99 and the dead tuples / table size), drawn by hand like the throughput chart.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const n0 = (x) =>
  x === null || x === undefined || Number.isNaN(x) ? '–' : Math.round(x).toLocaleString('en-US');
const n1 = (x) => (x === null || x === undefined ? '–' : (Math.round(x * 10) / 10).toString());
const n2 = (x) => (x === null || x === undefined ? '–' : (Math.round(x * 100) / 100).toString());

const CASES = {
  a: 'the sustainable rate, held',
  b: 'half the sustainable rate',
  c: 'overload (producer flat out)',
  d: 'half the sustainable rate, a REPEATABLE READ transaction held in the middle',
  e: 'a hot key beside many small keys, per-key concurrency 1',
};
const DB = { pg: 'PostgreSQL', mysql: 'MariaDB', sqlite: 'SQLite' };
const FORM = { rowlock: 'row lock', lease: 'lease', advisory: 'advisory' };

/** The system's name in the tables: `sqlinbox lease (plain SQL)`, `graphile-worker tuned`. */
export function systemName(e) {
  const stock = e.runs?.some((r) => r.stockTable) ? ", table without ddl()'s storage parameters" : '';
  if (e.kind === 'sqlinbox')
    return `${DB[e.db]}: sqlinbox ${FORM[e.form]} (${e.producer === 'sql' ? 'plain-SQL producer' : 'publishMany'}${e.consumers > 1 ? `, ${e.consumers} consumer processes` : ''}${stock})`;
  if (e.kind === 'graphile') return `${DB[e.db]}: graphile-worker ${e.variant} (addJobs)`;
  if (e.kind === 'pgboss') return `${DB[e.db]}: pg-boss work() batchSize ${e.batch}, burst (insert)`;
  return e.kind;
}
const systemKey = (e) => e.id.replace(/^sustained-[a-e]-/, '');

const run = (e) => e?.runs?.find((r) => !r.error);
/** Held: the backlog stayed within 2 s of work at the rate for the whole case. */
const bounded = (r) => r.summary.maxBacklog <= Math.max(2 * r.rate, 100);
const cpuPct = (r, key) => {
  const ws = r.windows ?? [];
  const secs = ws.reduce((a, w) => a + w.secs, 0);
  const msum = ws.reduce((a, w) => a + (w[key] ?? 0), 0);
  return secs ? `${Math.round(msum / secs / 10)}%` : '–';
};

/** The ratios of issue 31's "Must show" that W6 measures, each with its figures and a verdict. */
export function sustainedVerdicts(byId) {
  const v = [];
  const get = (id) => run(byId.get(id));
  const L = 'pg-sqlinbox-lease-sql';
  const G = 'pg-graphile-tuned';
  const B = 'pg-pgboss-work100burst';
  const la = get(`sustained-a-${L}`);
  const ga = get(`sustained-a-${G}`);
  const ba = get(`sustained-a-${B}`);
  const rateOf = (r) => r?.summary?.consumedPerSec;
  const heldNote = (r, name) =>
    (r.unheld ?? [])
      .map(
        (u) =>
          `; ${name}'s searched ${n0(u.rate)} jobs/s was not held for the case's length (${n0(u.maxBacklog)} rows behind at most, ${n0(u.consumedPerSec)} jobs/s consumed), held again at ${n0(r.rate)}${u.leftBehind > 0 ? ` with ${n0(u.leftBehind)} rows still behind from it` : ''}`,
      )
      .join('') +
    (bounded(r)
      ? ''
      : `; ${name} did not hold ${n0(r.rate)} jobs/s with a bounded backlog (${n0(r.summary.maxBacklog)} rows at most)`);
  const ratio = (claim, a, b, min) => {
    if (!a || !b) return v.push({ claim, pass: null, detail: 'not measured' });
    const given = a.search?.given || b.search?.given ? '; rates given on the command line' : '';
    if (bounded(a) && !bounded(b)) {
      // The peer did not hold its rate: whatever it sustains is below that rate, so sqlinbox's held
      // rate over the peer's rate is a lower bound of the ratio.
      const q = a.rate / b.rate;
      return v.push({
        claim,
        pass: q >= min,
        detail: `sqlinbox held ${n0(a.rate)} jobs/s; the peer did not hold ${n0(b.rate)} jobs/s (${n0(b.summary.maxBacklog)} rows behind at most, ${n0(rateOf(b))} jobs/s consumed), so what it sustains is below that: ${n0(a.rate)} / ${n0(b.rate)} = ${n2(q)}x at least (need ≥ ${min}x)${heldNote(a, 'sqlinbox')}${(b.unheld ?? []).length ? `; the peer's searched ${b.unheld.map((u) => n0(u.rate)).join(', ')} jobs/s not held either` : ''}${given}`,
      });
    }
    if (bounded(a) && bounded(b) && b.search?.given)
      // A peer that held a rate given to it may sustain more: the ratio of the two rates bounds nothing.
      return v.push({
        claim,
        pass: null,
        detail: `sqlinbox held ${n0(a.rate)} jobs/s and the peer the ${n0(b.rate)} jobs/s given to it, which is not its sustainable rate: search it, or give it a rate it does not hold${given}`,
      });
    const q = rateOf(a) / rateOf(b);
    v.push({
      claim,
      pass: q >= min && bounded(a) && bounded(b),
      detail: `${n0(rateOf(a))} / ${n0(rateOf(b))} jobs/s consumed = ${n2(q)}x (need ≥ ${min}x, each held with a bounded backlog)${heldNote(a, 'sqlinbox')}${heldNote(b, 'the peer')}${given}`,
    });
  };
  ratio('W6 PostgreSQL sustainable rate: sqlinbox lease vs graphile-worker tuned', la, ga, 3);
  ratio('W6 PostgreSQL sustainable rate: sqlinbox lease vs pg-boss', la, ba, 10);
  if (la) {
    const s = la.summary;
    const lowest = Math.min(...la.windows.map((w) => w.consumedPerSec));
    v.push({
      claim: `W6 PostgreSQL sqlinbox lease held ${n0(s.seconds)} s: last minute's rate over the first's, the backlog bounded`,
      pass: s.lastOverFirst === null ? null : s.lastOverFirst >= 0.9 && bounded(la),
      detail: `${n0(s.lastMinute)} / ${n0(s.firstMinute)} jobs/s = ${n2(s.lastOverFirst)}x (need ≥ 0.9x); the slowest 10 s window ${n0(lowest)} jobs/s, the backlog ${n0(s.maxBacklog)} rows at most${bounded(la) ? '' : ' (not bounded)'}`,
    });
    v.push({
      claim:
        'W6 PostgreSQL sqlinbox lease: table and index size at the end over the size after the first minute',
      pass: s.sizeEndOverFirst === null ? null : s.sizeEndOverFirst <= 2,
      detail: `${n1(s.sizeEndMB)} / ${n1(s.sizeAfterFirstMB)} MB = ${n2(s.sizeEndOverFirst)}x (need ≤ 2x)`,
    });
  } else
    v.push({
      claim: 'W6 PostgreSQL sqlinbox lease held: flat rate, bounded size',
      pass: null,
      detail: 'not measured',
    });
  const lc = get(`sustained-c-${L}`);
  if (lc?.summary?.ratio != null) {
    const s = lc.summary;
    v.push({
      claim: `W6 overload: sqlinbox lease's consumed rate with ${n0(s.atTarget.backlog)} rows behind it over the rate at ${n0(s.atTenth.backlog)}`,
      pass: s.ratio >= 0.8,
      detail: `${n0(s.atTarget.consumedPerSec)} / ${n0(s.atTenth.consumedPerSec)} jobs/s = ${n2(s.ratio)}x (need ≥ 0.8x)`,
    });
  } else
    v.push({
      claim: 'W6 overload: consumed rate at the target backlog over the rate at a tenth of it',
      pass: null,
      detail: lc
        ? `the backlog reached ${n0(lc.summary?.maxBacklog)} of ${n0(lc.summary?.target)}`
        : 'not measured',
    });
  for (const db of ['pg', 'mysql', 'sqlite']) {
    const b = get(`sustained-b-${db}-sqlinbox-lease-sql`) ?? get(`sustained-d-${db}-sqlinbox-lease-sql`);
    // (d)'s windows before the hold are (b)'s load where (b) itself did not run; either way after
    // the first window, which is shown apart (the consumer met the first rows at its idle poll).
    const fig = b?.summary?.before ?? b?.summary?.steady ?? b?.summary;
    if (!b) continue;
    const limit = db === 'pg' ? 20 : 1000;
    const startup = b.summary.startup;
    v.push({
      claim: `W6 ${DB[db]} half capacity, plain-SQL producer: enqueue-to-start p99${db === 'pg' ? '' : ' within the poll interval (1 s)'}`,
      pass: fig.p99 === null ? null : fig.p99 < limit,
      detail: `p50 ${n2(fig.p50)} ms, p99 ${n2(fig.p99)} ms at ${n0(b.rate)} jobs/s (need < ${n0(limit)} ms)${b.summary.before ? ", from (d)'s windows before the hold" : ''}${startup ? `; the first window (start-up, the consumer idle until its poll) p99 ${n2(startup.p99)} ms` : ''}`,
    });
  }
  const ld = get(`sustained-d-${L}`);
  const gd = get(`sustained-d-${G}`);
  if (ld?.summary?.during) {
    const s = ld.summary;
    v.push({
      claim: 'W6 held snapshot: sqlinbox lease p99 while it is held vs graphile-worker tuned',
      pass: gd?.summary?.during ? s.during.p99 <= gd.summary.during.p99 : null,
      detail: `${n2(s.during.p99)} ms${gd?.summary?.during ? ` vs ${n2(gd.summary.during.p99)} ms` : ' (graphile-worker not measured)'}; before ${n2(s.before.p99)} ms`,
    });
    const unmeasured = s.after === null ? 'not measured: the run has no windows after the commit' : null;
    v.push({
      claim: 'W6 held snapshot: sqlinbox lease backlog back to steady within 60 s of the commit',
      pass: unmeasured ? null : s.backlogBackAfter === null ? false : s.backlogBackAfter <= 60,
      detail:
        unmeasured ??
        `${s.backlogBackAfter === null ? 'not back by the end' : `${n1(s.backlogBackAfter)} s`} (steady ${n0(s.steadyBacklog)} rows, ${n0(s.maxBacklogHeld)} at most while held)`,
    });
    v.push({
      claim: 'W6 held snapshot: sqlinbox lease dead tuples back under their level before it within 5 minutes',
      pass: unmeasured ? null : s.deadBackAfter === null ? false : s.deadBackAfter <= 300,
      detail:
        unmeasured ??
        `${s.deadBackAfter === null ? 'not back by the end' : `${n1(s.deadBackAfter)} s`} (${n0(s.deadBefore)} at most before, ${n0(s.deadMaxHeld)} at most)`,
    });
  } else v.push({ claim: 'W6 held snapshot', pass: null, detail: 'not measured' });
  return v;
}

/** The W6 section of docs/benchmarks.md; writes the charts into `dir`. */
export function sustainedSection(results, dir) {
  const w6 = results.filter((e) => e.workload === 'sustained');
  if (w6.length === 0) return null;
  const md = ['## W6: sustained load', ''];
  const first = w6.map(run).find(Boolean);
  const st = first?.settings;
  const servers = first?.servers ?? {};
  md.push(
    "Producers and consumers at once, each in a process of its own, on servers the benchmark starts for itself with their stock settings: PostgreSQL from `initdb` (autovacuum on), MariaDB from `mariadb-install-db` with no configuration file, SQLite a file (WAL). 8 workers per consumer; SQLite's lease form with three consumer processes. The plain-SQL producer is another service's `INSERT` of a batch in one statement (on PostgreSQL the table carries the wake-up trigger); the peers' producers are their own batch calls (graphile-worker `addJobs`, pg-boss `insert`). A producer inserts every 5 ms the jobs due at its rate, up to 4 statements in flight. Enqueue-to-start runs from just before the insert is sent to the handler's start. The backlog is produced less consumed. Each case runs on fresh tables.",
  );
  md.push('');
  const dates = w6
    .map(run)
    .filter(Boolean)
    .map((r) => r.date)
    .filter(Boolean)
    .sort();
  const commits = [
    ...new Set(
      w6
        .map(run)
        .filter(Boolean)
        .map((r) => r.commit)
        .filter(Boolean),
    ),
  ];
  if (dates.length)
    md.push(
      `W6 ran from ${dates[0].slice(0, 16).replace('T', ' ')} to ${dates[dates.length - 1].slice(0, 16).replace('T', ' ')} UTC${commits.length ? ` at ${commits.join(', ')}` : ''}, on Node ${run(w6.find(run))?.node ?? '–'}, each case once.`,
      '',
    );
  if (st)
    md.push(
      `Case length ${n0(st.seconds)} s, a window every ${n0(st.window)} s; the search for the sustainable rate doubles from a first guess and then halves the interval, ${n0(st.searchSteps)} steps at most of ${n0(st.searchStep)} s after ${n0(st.searchSettle)} s of settling; a step holds when the consumers fell behind by at most 5% of what was produced plus a second's worth and the backlog is at most 2 s of work. Overload stops at ${n0(st.overloadTarget)} rows; the snapshot is held ${n0(st.holdSeconds)} s from second ${n0(st.holdAt)}; the hot key has ${n0(st.hotRows)} rows beside ${n0(st.hotKeys)} small keys.`,
    );
  const changed = [
    ...new Set(
      w6
        .map(run)
        .filter(Boolean)
        .map((r) => r.pgOptions)
        .filter(Boolean),
    ),
  ];
  if (changed.length)
    md.push(
      '',
      `**Not stock settings**: PostgreSQL started with \`${changed.join('`, `')}\` for a diagnosis.`,
    );
  if (servers.postgresql)
    md.push(
      '',
      `PostgreSQL: ${Object.entries(servers.postgresql)
        .map(([k, x]) => `${k}=${x}`)
        .join(', ')}.`,
    );
  if (servers.mariadb)
    md.push(
      '',
      `MariaDB: ${Object.entries(servers.mariadb)
        .map(([k, x]) => `${k}=${x}`)
        .join(', ')}.`,
    );
  md.push('');
  const byCase = (c) => w6.filter((e) => e.case === c);
  const failed = (e) => `| ${systemName(e)} | failed: ${String(e.runs[0]?.error ?? '').slice(0, 100)} |`;
  if (byCase('a').length) {
    md.push(`### (a) ${CASES.a}`, '');
    md.push(
      '| system | rate, jobs/s (bold: held with a bounded backlog) | consumed/s | first minute | last minute | last / first | size after the first minute → end, MB | dead tuples at most | oldest xmin age at most | p50 / p99 ms | rows/claim | claim scan pages: median, most | CPU: producer, consumer, server |',
    );
    md.push(`|${' --- |'.repeat(13)}`);
    for (const e of byCase('a')) {
      const r = run(e);
      if (!r) {
        md.push(failed(e));
        continue;
      }
      const s = r.summary;
      const rpc = r.windows.filter((w) => w.rowsPerClaim).map((w) => w.rowsPerClaim);
      md.push(
        `| ${systemName(e)} | ${bounded(r) ? `**${n0(r.rate)}**` : `${n0(r.rate)}, not held: ${n0(s.maxBacklog)} rows behind at most`} | ${n0(s.consumedPerSec)} | ${n0(s.firstMinute)} | ${n0(s.lastMinute)} | ${n2(s.lastOverFirst)}x | ${n1(s.sizeAfterFirstMB)} → ${n1(s.sizeEndMB)} | ${e.db === 'pg' ? n0(s.maxDead) : e.db === 'mysql' ? `history ${n0(s.maxHistoryLength)}` : '–'} | ${e.db === 'pg' ? n0(s.maxXminAge) : '–'} | ${n2(s.p50)} / ${n2(s.p99)} | ${rpc.length ? n1(rpc.reduce((a, b) => a + b, 0) / rpc.length) : '–'} | ${probe(r)} | ${cpuPct(r, 'producerCpuMs')}, ${cpuPct(r, 'consumerCpuMs')}, ${cpuPct(r, 'serverCpuMs')} |`,
      );
    }
    md.push('');
    const searches = byCase('a')
      .map((e) => [e, run(e)])
      .filter(([, r]) => r?.search?.steps?.length);
    if (searches.length) {
      md.push('The searches (rate tried: consumed/s, held or not):', '');
      for (const [e, r] of searches)
        md.push(
          `- ${systemName(e)}: ${r.search.steps.map((x) => `${n0(x.rate)}: ${n0(x.consumed)}${x.holds ? '' : ' (not held)'}`).join(', ')}`,
        );
      md.push('');
    }
  }
  for (const c of ['b', 'e']) {
    if (!byCase(c).length) continue;
    md.push(`### (${c}) ${CASES[c]}`, '');
    md.push(
      `| system | rate, jobs/s | consumed/s | p50 / p99 ms${c === 'e' ? ' (small keys)' : ''} | backlog at most | size after the first minute → end, MB | dead tuples at most${c === 'e' ? ' | hot-key rows consumed' : ''} |`,
    );
    md.push(`|${' --- |'.repeat(c === 'e' ? 8 : 7)}`);
    for (const e of byCase(c)) {
      const r = run(e);
      if (!r) {
        md.push(failed(e));
        continue;
      }
      const s = r.summary;
      const hot = r.windows.reduce((a, w) => a + (w.hotConsumed ?? 0), 0);
      md.push(
        `| ${systemName(e)} | ${n0(r.rate)} | ${n0(s.consumedPerSec)} | ${n2(s.p50)} / **${n2(s.p99)}** | ${n0(s.maxBacklog)} | ${n1(s.sizeAfterFirstMB)} → ${n1(s.sizeEndMB)} | ${e.db === 'pg' ? n0(s.maxDead) : '–'}${c === 'e' ? ` | ${n0(hot)}` : ''} |`,
      );
    }
    md.push('');
  }
  if (byCase('c').length) {
    md.push(`### (c) ${CASES.c}`, '');
    md.push(
      '| system | produced/s | consumed/s at a tenth of the target | at the target | ratio | size at the end, MB | dead tuples at most | claim scan pages: median, most | CPU: producer, consumer, server |',
    );
    md.push(`|${' --- |'.repeat(9)}`);
    for (const e of byCase('c')) {
      const r = run(e);
      if (!r) {
        md.push(failed(e));
        continue;
      }
      const s = r.summary;
      const last = r.windows[r.windows.length - 1];
      md.push(
        `| ${systemName(e)} | ${n0(s.producedPerSec)} | ${s.atTenth ? `${n0(s.atTenth.consumedPerSec)} (${n0(s.atTenth.backlog)} rows)` : '–'} | ${s.atTarget ? `${n0(s.atTarget.consumedPerSec)} (${n0(s.atTarget.backlog)} rows)` : `not reached (${n0(s.maxBacklog)} rows)`} | **${n2(s.ratio)}x** | ${n1((last?.tableMB ?? 0) + (last?.indexMB ?? 0))} | ${e.db === 'pg' ? n0(s.maxDead) : '–'} | ${probe(r)} | ${cpuPct(r, 'producerCpuMs')}, ${cpuPct(r, 'consumerCpuMs')}, ${cpuPct(r, 'serverCpuMs')} |`,
      );
    }
    md.push('');
    md.push(
      "\"Claim scan pages\" is a probe run by the bench every window on PostgreSQL: the claim's select of the next 300 due rows in claim order from the table's first id, without its locks, under `EXPLAIN (ANALYZE, BUFFERS)`: the pages it touched. It grows with the settled rows whose index entries vacuum has not removed yet, which a claim from the first id steps over (sqlinbox's lease claims start near the last claim's lowest id, and scan from the first id at most every 100 ms, or every ten times as long as that scan took).",
      '',
    );
  }
  if (byCase('d').length) {
    md.push(`### (d) ${CASES.d}`, '');
    md.push(
      '| system | rate | p50 / p99 before, ms | while held | after | backlog steady → at most while held | backlog back after | dead tuples at most before → at most | dead tuples back after | oldest xmin age at most | size before → at most, MB |',
    );
    md.push(`|${' --- |'.repeat(11)}`);
    const notes = [];
    for (const e of byCase('d')) {
      const r = run(e);
      if (!r) {
        md.push(failed(e));
        continue;
      }
      const s = r.summary;
      const pp = (x) => (x ? `${n2(x.p50)} / ${n2(x.p99)}` : '–');
      if (r.note) notes.push(`${systemName(e)}: ${r.note}`);
      // SQLite has no dead tuples or history list to count (deadMaxHeld null); its WAL file is
      // what a held read makes grow, shown beside the table's size.
      const counted = s.deadMaxHeld !== null && s.deadMaxHeld !== undefined;
      const dead = counted
        ? `${n0(s.deadBefore)} → ${n0(s.deadMaxHeld)}${e.db === 'mysql' ? ' (history list)' : ''}`
        : '–';
      const deadBack = !counted
        ? '–'
        : s.deadBackAfter === null
          ? 'not by the end'
          : `${n1(s.deadBackAfter)} s`;
      const walWindows = (r.windows ?? []).filter((w) => w.walMB !== undefined);
      const walBefore = walWindows.filter((w) => w.stage === 'before').at(-1)?.walMB;
      const wal = walWindows.length
        ? `; WAL ${n1(walBefore)} → ${n1(Math.max(...walWindows.map((w) => w.walMB)))}, at the end ${n1(walWindows.at(-1).walMB)}`
        : '';
      md.push(
        `| ${systemName(e)} | ${n0(r.rate)} | ${pp(s.before)} | **${pp(s.during)}** | ${pp(s.after)} | ${n0(s.steadyBacklog)} → ${n0(s.maxBacklogHeld)} | ${s.backlogBackAfter === null ? 'not by the end' : `${n1(s.backlogBackAfter)} s`} | ${dead} | ${deadBack} | ${e.db === 'pg' ? n0(s.maxXminAge) : '–'} | ${n1(s.sizeBeforeMB)} → ${n1(s.sizeMaxMB)}${wal} |`,
      );
    }
    md.push('');
    for (const n of notes) md.push(`Note: ${n}`, '');
  }
  // A chart per system.
  const systems = [...new Set(w6.map(systemKey))];
  md.push('### Over time', '');
  md.push(
    'A chart per system, a row per case: produced and consumed jobs/s, the backlog, the enqueue-to-start p99, and the dead tuples (PostgreSQL; MariaDB: the history list length) beside the table and index size. A shaded band marks the held snapshot.',
    '',
  );
  for (const key of systems) {
    const entries = w6.filter((e) => systemKey(e) === key && run(e));
    if (!entries.length) continue;
    const file = `w6-${key}.svg`;
    writeFileSync(join(dir, file), chart(systemName(entries[0]), entries));
    md.push(`![${systemName(entries[0])}](benchmarks/${file})`, '');
  }
  return md.join('\n');
}

/** One system's chart: a row per case, four panels per row. */
function chart(title, entries) {
  const W = 1100;
  const rowH = 170;
  const top = 34;
  const panelW = W / 4;
  const out = [];
  const H = top + entries.length * rowH + 10;
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="11">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="10" y="20" font-size="14" font-weight="bold">W6 over time: ${title}</text>`,
  );
  entries.forEach((e, row) => {
    const r = run(e);
    const ws = r.windows;
    const y0 = top + row * rowH;
    const tMax = Math.max(1, ...ws.map((w) => w.t));
    const tMin = Math.min(...ws.map((w) => w.t - w.secs));
    const panels = [
      {
        name: `(${e.case}) jobs/s: consumed (blue), produced (grey)`,
        series: [
          ['producedPerSec', '#999'],
          ['consumedPerSec', '#1f77b4'],
        ],
      },
      { name: 'backlog, rows', series: [['backlog', '#d62728']] },
      { name: 'p99 enqueue-to-start, ms (log scale)', series: [['p99', '#9467bd']], log: true },
      {
        name:
          e.db === 'mysql'
            ? 'history list (orange), size MB (green, right)'
            : e.db === 'pg'
              ? 'dead tuples (orange), size MB (green, right)'
              : 'file MB (green)',
        series: [
          [e.db === 'mysql' ? 'historyLength' : 'dead', '#ff7f0e'],
          ['size', '#2ca02c', true],
        ],
      },
    ];
    panels.forEach((p, i) => {
      const x0 = i * panelW + 50;
      const pw = panelW - 70;
      const ph = rowH - 50;
      const py = y0 + 18;
      out.push(`<text x="${x0}" y="${py - 4}">${p.name}</text>`);
      out.push(`<rect x="${x0}" y="${py}" width="${pw}" height="${ph}" fill="none" stroke="#ccc"/>`);
      const hold = r.hold;
      if (hold?.from != null && hold.to != null) {
        const hx = x0 + ((hold.from - tMin) / (tMax - tMin)) * pw;
        const hw = ((hold.to - hold.from) / (tMax - tMin)) * pw;
        out.push(
          `<rect x="${hx.toFixed(1)}" y="${py}" width="${Math.max(1, hw).toFixed(1)}" height="${ph}" fill="#fdd" opacity="0.6"/>`,
        );
      }
      const value = (w, k) => (k === 'size' ? (w.tableMB ?? 0) + (w.indexMB ?? 0) : w[k]);
      // Left axis: the panel's series but the right-hand one; each right-hand series its own scale.
      const leftMax = Math.max(
        1,
        ...p.series.filter((s) => !s[2]).flatMap(([k]) => ws.map((w) => value(w, k) ?? 0)),
      );
      out.push(`<text x="${x0 - 4}" y="${py + 10}" text-anchor="end">${short(leftMax)}</text>`);
      out.push(`<text x="${x0 - 4}" y="${py + ph}" text-anchor="end">${p.log ? '0.1' : '0'}</text>`);
      out.push(
        `<text x="${x0 + pw}" y="${py + ph + 12}" text-anchor="end">${Math.round(tMax - tMin)} s</text>`,
      );
      for (const [k, color, right] of p.series) {
        const vals = ws.map((w) => value(w, k));
        if (vals.every((x) => x === undefined || x === null)) continue;
        const max = right ? Math.max(1, ...vals.map((x) => x ?? 0)) : leftMax;
        const yv = (x) => {
          if (p.log) {
            const lo = Math.log10(0.1);
            const hi = Math.log10(Math.max(1, leftMax));
            return py + ph - ((Math.log10(Math.max(0.1, x)) - lo) / (hi - lo || 1)) * ph;
          }
          return py + ph - (x / max) * ph;
        };
        const pts = ws
          .map((w, j) =>
            vals[j] === null || vals[j] === undefined
              ? null
              : `${(x0 + ((w.t - tMin) / (tMax - tMin)) * pw).toFixed(1)},${yv(vals[j]).toFixed(1)}`,
          )
          .filter(Boolean);
        if (pts.length)
          out.push(`<polyline points="${pts.join(' ')}" fill="none" stroke="${color}" stroke-width="1.5"/>`);
        if (right) out.push(`<text x="${x0 + pw + 2}" y="${py + 10}" fill="${color}">${short(max)}</text>`);
      }
    });
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

/** The claim probe's pages over the run's windows: the median and the most. */
function probe(r) {
  const b = r.windows
    .map((w) => w.probe?.buffers)
    .filter((x) => typeof x === 'number')
    .sort((x, y) => x - y);
  return b.length ? `${n0(b[Math.floor(b.length / 2)])}, ${n0(b[b.length - 1])}` : '–';
}

const short = (x) => (x >= 1e6 ? `${n1(x / 1e6)}M` : x >= 1e4 ? `${n0(x / 1e3)}k` : n1(x));
