import type { AdminPage, AdminRow, FlowParentRef, QueueStats, RowState } from '@sqlinbox/core';
import { lineChart, type Series, sparkline } from './chart.js';
import { CLIENT_JS, CSS } from './client.js';
import { Html, html } from './html.js';
import type { Sample } from './sampler.js';

/** What every page needs to know about the request and the dashboard. */
export interface View {
  readonly base: string;
  readonly title: string;
  /** The CSP nonce of this response. */
  readonly nonce: string;
  /** The CSRF token the forms carry. */
  readonly csrf: string;
  readonly readOnly: boolean;
  /** Milliseconds between live refreshes; 0 for none. */
  readonly refresh: number;
}

/** One queue as a page shows it. */
export interface QueueView {
  readonly name: string;
  readonly table: string;
  readonly hasDead: boolean;
  readonly hasDone: boolean;
  readonly stats: QueueStats | null;
  readonly error?: string;
  readonly samples: readonly Sample[];
  /** Whether the table has a control table (pause and resume), and FIFO groups. */
  readonly control?: boolean;
  readonly hasGroups?: boolean;
  /** Whether the table has a unique key column (the list filters by key). */
  readonly hasKeys?: boolean;
  /** Whether the table keeps flows (the flow page, a search by id). */
  readonly hasFlows?: boolean;
}

/** A row's place in flows, as its page shows it: its children, its parents, or why it was not read. */
export type RowFlow =
  | {
      /** Its children, and how many of them it still waits for. */
      readonly children: number;
      readonly pending: number | undefined;
      /** The parents it runs before. */
      readonly parents: readonly FlowParentRef[];
    }
  | { readonly error: string };

/** The rows a queue page lists: one FIFO group's, one unique key's, or every row. */
export interface ListFilter {
  readonly group?: string;
  readonly key?: string;
}

/** A filter as the query string it keeps across tabs and pages (`&in_group=..&key=..`), or ''. */
function filterQuery(f: ListFilter | undefined): string {
  const params = new URLSearchParams();
  if (f?.group !== undefined) params.set('in_group', f.group);
  if (f?.key !== undefined) params.set('key', f.key);
  const text = params.toString();
  return text === '' ? '' : `&${text}`;
}

export type ListState = RowState | 'all';
export const STATES: readonly ListState[] = ['ready', 'delayed', 'inWork', 'dead', 'done', 'all'];
const STATE_LABEL: Record<ListState, string> = {
  ready: 'ready',
  delayed: 'delayed',
  inWork: 'in work',
  dead: 'dead',
  done: 'done',
  all: 'all',
};

/** What an action did, read back from the redirect's query (numbers and fixed words only). */
export interface Notice {
  readonly verb: 'requeued' | 'deleted' | 'rescheduled' | 'cancelled' | 'paused' | 'resumed';
  readonly changed: number;
  readonly left: number;
  readonly why: readonly string[];
  /** Pause and resume: the FIFO group, where one was paused or resumed. */
  readonly group?: string | undefined;
  /** Cancel: the rows in work whose handler is told to stop. */
  readonly signalled?: number;
}

export const q = (view: View, name: string, rest = ''): string =>
  `${view.base}/queues/${encodeURIComponent(name)}${rest}`;

export function page(view: View, title: string, body: Html): string {
  return `<!doctype html>${
    html`<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${title} · ${view.title}</title>
<style nonce="${view.nonce}">${STYLE}</style>
</head>
<body data-refresh="${view.refresh}">
<header><a href="${view.base}/">${view.title}</a><span class="mode">${view.readOnly ? 'read-only' : 'actions enabled'}</span></header>
<main>
${body}
</main>
<script nonce="${view.nonce}">${SCRIPT}</script>
</body>
</html>`.text
  }`;
}

// The stylesheet and the script are constants of this package, not data: kept as they are.
const STYLE = new Html(CSS);
const SCRIPT = new Html(CLIENT_JS);

export function errorPage(view: View, status: number, message: string): string {
  return page(
    view,
    `${status}`,
    html`<h1>${statusText(status)}</h1><p class="notice problem" id="problem">${message}</p><p><a href="${view.base}/">All queues</a></p>`,
  );
}

function statusText(status: number): string {
  return (
    {
      400: 'Bad request',
      403: 'Refused',
      404: 'Not found',
      405: 'Method not allowed',
      413: 'Too large',
      415: 'Unsupported form',
      500: 'The database said no',
    }[status] ?? 'Error'
  );
}

export function age(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '–';
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 7_200_000) return `${Math.round(ms / 60_000)} min`;
  if (ms < 172_800_000) return `${(ms / 3_600_000).toFixed(1)} h`;
  return `${Math.round(ms / 86_400_000)} d`;
}

/**
 * The oldest ready row's age as the pages show it: '–' with no ready row, `unknown` where ready
 * rows carry no time to read an age from (published without a delay, no column that holds one).
 */
export function lagText(s: QueueStats): string {
  if (s.ready === 0) return '–';
  return s.oldestReadyAgeMs === null || s.oldestReadyAgeMs === undefined
    ? 'unknown'
    : age(s.oldestReadyAgeMs);
}

/**
 * The first tab with rows, as counted by the last reading: dead letters first (what needs an
 * operator), then ready, delayed, in work; else the processed rows where the table keeps them,
 * else every row.
 */
export function firstTab(qv: QueueView): ListState {
  const s = qv.stats;
  if (s !== null) {
    if (qv.hasDead && s.dead > 0) return 'dead';
    if (s.ready > 0) return 'ready';
    if (s.delayed > 0) return 'delayed';
    if (s.inWork > 0) return 'inWork';
  }
  return qv.hasDone ? 'done' : 'all';
}

export function when(d: Date | null): string {
  return d === null ? '–' : `${d.toISOString().replace('T', ' ').slice(0, 19)} UTC`;
}

/** Settled rows a minute over the last `windowMs`, or null without counts. */
function perMinute(samples: readonly Sample[], windowMs: number): number | null {
  const recent = samples.filter((s) => s.settled !== null && s.at >= Date.now() - windowMs);
  if (recent.length === 0) return null;
  const span = recent.reduce((n, s) => n + s.spanMs, 0);
  const done = recent.reduce((n, s) => n + s.settled!.done, 0);
  return span > 0 ? (done * 60_000) / span : null;
}

export function overview(
  view: View,
  queues: readonly QueueView[],
  counting: boolean,
  windowMs: number,
): string {
  const rows = queues.map((qv) => {
    const s = qv.stats;
    const rate = perMinute(qv.samples, 60_000);
    const recent = qv.samples.filter((x) => x.stats !== null && x.at >= Date.now() - windowMs);
    const trend = sparkline(
      `rows waiting in ${qv.name}`,
      's-ready',
      recent.map((x) => x.stats!.ready + x.stats!.delayed + x.stats!.inWork),
    );
    return html`<tr data-queue="${qv.name}">
<td><a href="${q(view, qv.name)}">${qv.name}</a> <span class="muted">${qv.table === qv.name ? '' : qv.table}</span>${s?.paused?.queue ? html` <span class="state state-paused" data-paused>paused</span>` : s?.paused !== undefined && s.paused.groups.length > 0 ? html` <span class="state state-paused" data-paused>${s.paused.groups.length} group${s.paused.groups.length === 1 ? '' : 's'} paused</span>` : ''}</td>
${
  s === null
    ? html`<td colspan="${counting ? 7 : 6}" class="error">${qv.error ?? 'no reading'}</td>`
    : html`<td class="num" data-count="ready">${s.ready}</td><td class="num" data-count="delayed">${s.delayed}</td>
<td class="num" data-count="inWork">${s.inWorkSeen === 'none' ? '–' : s.inWork}</td>
<td class="num" data-count="dead">${qv.hasDead ? s.dead : '–'}</td><td class="num" data-lag>${lagText(s)}</td>
${counting ? html`<td class="num">${rate === null ? '–' : rate.toFixed(1)}</td>` : ''}<td>${trend}</td>`
}
</tr>`;
  });
  return page(
    view,
    'Queues',
    html`<h1>Queues</h1>
<section id="overview" data-live>
<div class="wide">
<table>
<thead><tr><th>queue</th><th class="num">ready</th><th class="num">delayed</th><th class="num">in work</th><th class="num">dead</th><th class="num">oldest ready</th>${counting ? html`<th class="num">done / min</th>` : ''}<th>waiting, last ${Math.round(windowMs / 60_000)} min</th></tr></thead>
<tbody>${rows}</tbody>
</table>
</div>
</section>`,
  );
}

function cards(qv: QueueView): Html {
  const s = qv.stats;
  if (s === null) return html`<p class="notice problem">${qv.error ?? 'no reading'}</p>`;
  const card = (key: string, labelText: string, value: string | number) =>
    html`<div class="card" data-count="${key}"><b>${value}</b><span>${labelText}</span></div>`;
  return html`<div class="cards">
${card('ready', 'ready', s.ready)}${card('delayed', 'delayed', s.delayed)}
${card('inWork', 'in work', s.inWorkSeen === 'none' ? '–' : s.inWork)}${qv.hasDead ? card('dead', 'dead', s.dead) : ''}
${card('oldest', 'oldest ready', lagText(s))}
</div>${s.inWorkSeen === 'none' ? html`<p class="muted">Rows in work are not visible for this table; they count as ready.</p>` : ''}${lagText(s) === 'unknown' ? html`<p class="muted" id="lag-unknown">The age of the oldest ready row is unknown: its row carries no time (published without a delay, and the table has no column that records when a row was made).</p>` : ''}`;
}

function charts(qv: QueueView, counting: boolean, windowMs: number): Html {
  const to = Date.now();
  // The x axis spans the history kept, or less while the first readings come in.
  const from = Math.min(to - 20_000, Math.max(to - windowMs, qv.samples[0]?.at ?? to));
  const samples = qv.samples.filter((s) => s.at >= from);
  const series = (label: string, cls: string, pick: (s: Sample) => number | null): Series => ({
    label,
    cls,
    points: samples.map((s) => ({ at: s.at, value: pick(s) })),
  });
  // No ready row: no lag (0). Ready rows without a time to read their age from: unknown, never 0.
  const lagSeries: Series = {
    label: 'oldest ready',
    cls: 's-lag',
    points: samples.map((s) => {
      const st = s.stats;
      if (st === null) return { at: s.at, value: null };
      if (st.ready === 0) return { at: s.at, value: 0 };
      const ms = st.oldestReadyAgeMs;
      return ms === null || ms === undefined
        ? { at: s.at, value: null, unknown: true }
        : { at: s.at, value: ms / 1000 };
    }),
  };
  const depth = lineChart({
    title: 'Depth',
    unit: 'rows',
    from,
    to,
    series: [
      series('ready', 's-ready', (s) => s.stats?.ready ?? null),
      series('delayed', 's-delayed', (s) => s.stats?.delayed ?? null),
      series('in work', 's-work', (s) => s.stats?.inWork ?? null),
      ...(qv.hasDead ? [series('dead', 's-dead', (s) => s.stats?.dead ?? null)] : []),
    ],
  });
  const lag = lineChart({
    title: 'Lag: oldest ready row',
    unit: 'seconds',
    from,
    to,
    series: [lagSeries],
  });
  const rate = (n: (c: NonNullable<Sample['settled']>) => number) => (s: Sample) =>
    s.settled === null || s.spanMs <= 0 ? null : (n(s.settled) * 60_000) / s.spanMs;
  const throughput = counting
    ? lineChart({
        title: 'Throughput',
        unit: 'rows a minute',
        from,
        to,
        series: [
          series(
            'done',
            's-done',
            rate((c) => c.done),
          ),
          series(
            'retried',
            's-work',
            rate((c) => c.retried),
          ),
          series(
            'dead-lettered',
            's-dead',
            rate((c) => c.dead),
          ),
        ],
      })
    : html`<figure class="chart"><figcaption>Throughput</figcaption><p class="muted">Counted from the brokers' events: give the dashboard its brokers (the <code>events</code> option) to see done, retried and dead-lettered rows a minute.</p></figure>`;
  return html`<div class="charts">${depth}${lag}${throughput}</div>`;
}

export function queuePage(
  view: View,
  qv: QueueView,
  opts: {
    readonly counting: boolean;
    readonly windowMs: number;
    readonly state: ListState;
    readonly list: AdminPage | null;
    readonly after: string | undefined;
    /** The group or key the list is filtered by. */
    readonly filter?: ListFilter;
    readonly notice: Notice | undefined;
    readonly errorOf: (row: AdminRow) => string | undefined;
    readonly showErrors: boolean;
    /** The failure record's columns the table has: its errors show on every tab, its times as columns. */
    readonly record?: { readonly errors: boolean; readonly failedAt: boolean; readonly createdAt: boolean };
  },
): string {
  const { state, list } = opts;
  const kept = filterQuery(opts.filter);
  const tabs = STATES.filter((s) => (s !== 'dead' || qv.hasDead) && (s !== 'done' || qv.hasDone)).map(
    (s) =>
      html`<a href="${q(view, qv.name, `?state=${s}${kept}`)}" ${s === state ? html`aria-current="page"` : ''}>${STATE_LABEL[s]}</a>`,
  );
  const filtering = opts.filter?.group !== undefined || opts.filter?.key !== undefined;
  const filterForm =
    qv.hasGroups || qv.hasKeys
      ? html`<form class="filter" method="get" action="${q(view, qv.name)}"><input type="hidden" name="state" value="${state}">${qv.hasGroups ? html`<label>group <input type="search" name="in_group" maxlength="255" value="${opts.filter?.group ?? ''}"></label> ` : ''}${qv.hasKeys ? html`<label>key <input type="search" name="key" maxlength="255" value="${opts.filter?.key ?? ''}"></label> ` : ''}<button type="submit">Filter</button>${filtering ? html` <a href="${q(view, qv.name, `?state=${state}`)}">Clear</a>` : ''}</form>`
      : '';
  const actions = !view.readOnly;
  const hidden = (fields: Record<string, string>) => hiddenFields(view, fields);
  const cancels = actions && qv.control === true;
  const cancelForm = (id: string) =>
    html`<form class="inline" method="post" action="${q(view, qv.name, '/cancel')}" data-confirm="Cancel row ${id}?">${hidden({ id, state })}<button type="submit" class="danger" name="do" value="cancel">Cancel</button></form>`;
  const rowActions = (r: AdminRow) => {
    if (!actions) return '';
    const id = String(r.id);
    if (r.state === 'ready' || r.state === 'inWork') {
      return cancels ? html`<td class="actions" data-label="">${cancelForm(id)}</td>` : '';
    }
    if (r.state === 'delayed') {
      return html`<td class="actions" data-label=""><form class="inline" method="post" action="${q(view, qv.name, '/run-now')}">${hidden({ id, state })}<button type="submit" name="do" value="run-now">Run now</button></form>${cancels ? html` ${cancelForm(id)}` : ''}</td>`;
    }
    if (r.state !== 'dead') return '';
    return html`<td class="actions" data-label=""><form class="inline" method="post" action="${q(view, qv.name, '/requeue')}">${hidden({ id, state })}<button type="submit" name="do" value="requeue">Requeue</button></form>
<form class="inline" method="post" action="${q(view, qv.name, '/delete')}" data-confirm="Delete dead letter ${id}?">${hidden({ id, state, dead: '1' })}<button type="submit" class="danger" name="do" value="delete">Delete</button></form></td>`;
  };
  const rec = opts.record ?? { errors: false, failedAt: false, createdAt: false };
  const errors = opts.showErrors && (state === 'dead' || rec.errors);
  const body =
    list === null
      ? ''
      : html`<table class="rows" data-state="${state}">
<thead><tr><th>id</th><th>state</th><th class="num">attempt</th><th>group</th><th>due</th><th>lease</th>${rec.createdAt ? html`<th>created</th>` : ''}${rec.failedAt ? html`<th>failed</th>` : ''}${errors ? html`<th>last error</th>` : ''}<th>payload</th>${actions && (state === 'dead' || state === 'delayed' || (cancels && state !== 'done')) ? html`<th></th>` : ''}</tr></thead>
<tbody>${list.rows.map(
          (r) => html`<tr data-id="${String(r.id)}">
<td data-label="id"><a href="${q(view, qv.name, `/rows/${encodeURIComponent(String(r.id))}`)}">${String(r.id)}</a></td>
<td data-label="state"><span class="state state-${r.state}">${STATE_LABEL[r.state]}</span></td>
<td class="num" data-label="attempt">${r.attempt ?? '–'}</td><td data-label="group">${r.group ?? ''}</td><td data-label="due">${when(r.retryAfter)}</td><td data-label="lease">${when(r.lockedUntil)}</td>${rec.createdAt ? html`<td data-label="created">${when(r.createdAt)}</td>` : ''}${rec.failedAt ? html`<td data-label="failed">${when(r.failedAt)}</td>` : ''}
${errors ? html`<td class="error" data-label="last error">${opts.errorOf(r) ?? ''}</td>` : ''}
<td class="payload" data-label="payload">${r.preview}${r.truncated ? '…' : ''}</td>${rowActions(r)}</tr>`,
        )}</tbody>
</table>
${list.rows.length === 0 ? html`<p class="muted" id="none">No ${STATE_LABEL[state]} rows${filtering ? ' that match the filter' : ''}${opts.after === undefined ? '' : ' after this point'}.</p>` : ''}
${list.next === undefined ? '' : html`<p><a rel="next" href="${q(view, qv.name, `?state=${state}&after=${encodeURIComponent(String(list.next))}${kept}`)}">Next page</a></p>`}
${
  actions && state === 'dead' && list.rows.length > 0
    ? html`<div class="bulk"><form method="post" action="${q(view, qv.name, '/requeue')}" data-confirm="Requeue every dead letter of ${qv.name}?">${hidden({ all: '1', state })}<button type="submit">Requeue all dead letters</button></form>
<form method="post" action="${q(view, qv.name, '/delete')}" data-confirm="Delete every dead letter of ${qv.name}?">${hidden({ all: '1', dead: '1', state })}<button type="submit" class="danger">Delete all dead letters</button></form></div>`
    : ''
}`;
  const n = opts.notice;
  return page(
    view,
    qv.name,
    html`<h1>${qv.name} <small>table ${qv.table}</small></h1>
<section id="q-stats" data-live>${cards(qv)}</section>
${controlBar(view, qv)}
<section id="q-charts" data-live>${charts(qv, opts.counting, opts.windowMs)}</section>
<form class="find" method="get" action="${q(view, qv.name, '/rows')}"><label for="find-id">Row by id</label><input id="find-id" name="id" required maxlength="200"><button type="submit">Show</button></form>
${qv.hasFlows ? html`<form class="find" method="get" action="${q(view, qv.name, '/flows')}"><label for="find-flow">Flow from row</label><input id="find-flow" name="id" required maxlength="200"><button type="submit">Show</button></form>` : ''}
${n === undefined ? '' : noticeOf(n)}
<nav class="tabs">${tabs}</nav>
${filterForm}
${body}`,
  );
}

/** The CSRF token and the given fields, as hidden inputs of a form. */
function hiddenFields(view: View, fields: Record<string, string>): Html {
  return html`<input type="hidden" name="csrf" value="${view.csrf}">${Object.entries(fields).map(
    ([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`,
  )}`;
}

const NOTICE_VERB: Record<Notice['verb'], string> = {
  requeued: 'Requeued',
  deleted: 'Deleted',
  rescheduled: 'Made due now:',
  cancelled: 'Cancelled',
  paused: 'Paused',
  resumed: 'Resumed',
};

function noticeOf(n: Notice): Html {
  if (n.verb === 'paused' || n.verb === 'resumed') {
    const what = n.group === undefined ? 'the queue' : `group ${n.group}`;
    return html`<p class="notice" id="notice">${NOTICE_VERB[n.verb]} ${what}${n.verb === 'paused' ? ': every broker starts no handler of it within a second; handlers in work finish' : ''}.</p>`;
  }
  const why = n.why.length === 0 ? '' : ` (${n.why.join(', ')})`;
  const told = n.signalled ?? 0;
  const stopping =
    told === 0
      ? ''
      : `; ${told} row${told === 1 ? '' : 's'} in work told to stop: the handler's signal aborts within a second`;
  return html`<p class="notice${n.left > 0 ? ' problem' : ''}" id="notice">${NOTICE_VERB[n.verb]} ${n.changed} row${n.changed === 1 ? '' : 's'}${stopping}${n.left > 0 ? `; left ${n.left} alone${why}` : ''}.</p>`;
}

/**
 * What is paused of a queue, and (actions on) the buttons that pause and resume it or one of its
 * FIFO groups. Empty for a table without a control table.
 */
function controlBar(view: View, qv: QueueView): Html {
  const paused = qv.stats?.paused;
  if (!qv.control || paused === undefined) return html``;
  const hidden = (fields: Record<string, string>) => hiddenFields(view, fields);
  const badge = paused.queue
    ? html`<span class="state state-paused" id="paused">paused</span>`
    : html`<span class="state state-ready" id="paused">running</span>`;
  const groups = paused.groups.map(
    (g) =>
      html`<li data-paused-group="${g}">${g}${
        view.readOnly
          ? ''
          : html` <form class="inline" method="post" action="${q(view, qv.name, '/resume')}">${hidden({ group: g, state: 'ready' })}<button type="submit">Resume group</button></form>`
      }</li>`,
  );
  const buttons = view.readOnly
    ? ''
    : html`<form class="inline" method="post" action="${q(view, qv.name, paused.queue ? '/resume' : '/pause')}"${paused.queue ? '' : html` data-confirm="Pause ${qv.name}? No broker starts a handler of it until it is resumed."`}>${hidden({ state: 'ready' })}<button type="submit" id="pause-queue">${paused.queue ? 'Resume queue' : 'Pause queue'}</button></form>${
        qv.hasGroups
          ? html` <form class="inline" method="post" action="${q(view, qv.name, '/pause')}">${hidden({ state: 'ready' })}<label for="pause-group">Group</label> <input id="pause-group" name="group" required maxlength="255"><button type="submit">Pause group</button></form>`
          : ''
      }`;
  return html`<section class="control" id="control"><div>Queue ${badge} ${buttons}</div>${
    paused.groups.length === 0 ? '' : html`<p>Groups paused:</p><ul id="paused-groups">${groups}</ul>`
  }</section>`;
}

export function rowPage(
  view: View,
  qv: QueueView,
  row: AdminRow,
  opts: {
    readonly payload: string;
    readonly error: string | undefined;
    readonly errorSource: string;
    readonly notice: Notice | undefined;
    /** Its place in flows, where the table keeps flows. */
    readonly flow?: RowFlow | undefined;
  },
): string {
  const id = String(row.id);
  const actions = !view.readOnly && row.state !== 'inWork' && row.state !== 'done';
  const hidden = (fields: Record<string, string>) => hiddenFields(view, fields);
  const dead = row.state === 'dead';
  return page(
    view,
    `${qv.name} ${id}`,
    html`<p><a href="${q(view, qv.name, dead ? '?state=dead' : '')}">← ${qv.name}</a></p>
<h1>Row ${id} <small>${qv.name}</small></h1>
${opts.notice === undefined ? '' : noticeOf(opts.notice)}
<dl>
<dt>state</dt><dd><span class="state state-${row.state}" id="row-state">${STATE_LABEL[row.state]}</span></dd>
<dt>attempt</dt><dd>${row.attempt ?? '–'}</dd>
<dt>group</dt><dd>${row.group ?? '–'}</dd>
<dt>due</dt><dd>${when(row.retryAfter)}</dd>
<dt>lease</dt><dd>${when(row.lockedUntil)}</dd>
<dt>processed</dt><dd>${when(row.processedAt)}</dd>
${row.createdAt === null ? '' : html`<dt>created</dt><dd id="row-created">${when(row.createdAt)}</dd>`}
${row.failedAt === null ? '' : html`<dt>failed</dt><dd id="row-failed">${when(row.failedAt)}</dd>`}
${opts.error === undefined ? '' : html`<dt>last error</dt><dd class="error" title="${opts.errorSource}">${opts.error}</dd>`}
${flowEntry(view, qv.name, id, opts.flow)}
</dl>
${
  !view.readOnly &&
  qv.control === true &&
  (row.state === 'ready' || row.state === 'delayed' || row.state === 'inWork')
    ? html`<p><form class="inline" method="post" action="${q(view, qv.name, '/cancel')}" data-confirm="Cancel row ${id}?">${hidden({ id, back: 'row', state: row.state })}<button type="submit" class="danger">Cancel</button></form></p>`
    : ''
}
${
  actions
    ? html`<p>${dead ? html`<form class="inline" method="post" action="${q(view, qv.name, '/requeue')}">${hidden({ id, back: 'row', state: 'dead' })}<button type="submit">Requeue</button></form> ` : ''}${row.state === 'delayed' ? html`<form class="inline" method="post" action="${q(view, qv.name, '/run-now')}">${hidden({ id, back: 'row', state: 'delayed' })}<button type="submit">Run now</button></form> ` : ''}<form class="inline" method="post" action="${q(view, qv.name, '/delete')}" data-confirm="Delete row ${id}?">${hidden({ id, ...(dead ? { dead: '1' } : {}), state: dead ? 'dead' : 'ready' })}<button type="submit" class="danger">Delete</button></form></p>`
    : ''
}
<h2>Payload</h2>
<pre id="payload">${opts.payload}</pre>
${
  row.result === undefined
    ? ''
    : html`<h2>Result</h2>
<pre id="result">${JSON.stringify(row.result, jsonValue, 2)}</pre>`
}
<h2>Row</h2>
<pre id="row">${JSON.stringify(row.row, jsonValue, 2)}</pre>`,
  );
}

/** The row's place in flows as a `dt`/`dd` pair, linking the flow pages; nothing for a row in no flow. */
function flowEntry(view: View, queue: string, id: string, flow: RowFlow | undefined): Html | '' {
  if (flow === undefined) return '';
  if ('error' in flow) return html`<dt>flow</dt><dd class="error" id="row-flow">${flow.error}</dd>`;
  if (flow.children === 0 && flow.parents.length === 0) return '';
  const link = (to: string, text: string) =>
    html`<a href="${q(view, queue, `/flows/${encodeURIComponent(to)}`)}">${text}</a>`;
  const below =
    flow.children === 0
      ? ''
      : html`<span id="row-flow-tree">${link(id, `its flow: ${flow.children} child${flow.children === 1 ? '' : 'ren'}`)}${flow.pending !== undefined && flow.pending > 0 ? `, waits for ${flow.pending}` : ''}</span>`;
  const above = flow.parents.map(
    (p) =>
      html`<span data-parent="${p.id}">child of ${link(p.id, `#${p.id}`)} (as ${p.name}, edge ${p.edge})</span>`,
  );
  const parts = [below, ...above].filter((x) => x !== '');
  return html`<dt>flow</dt><dd id="row-flow">${parts.map((x, i) => html`${i === 0 ? '' : html`<br>`}${x}`)}</dd>`;
}

/** JSON of a driver's row: bigints as text, bytes as their length. */
export function jsonValue(_key: string, v: unknown): unknown {
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof Uint8Array) return `<${v.byteLength} bytes>`;
  if (typeof v === 'object' && v !== null && (v as { type?: unknown }).type === 'Buffer') {
    const data = (v as { data?: unknown }).data;
    if (Array.isArray(data)) return `<${data.length} bytes>`;
  }
  return v;
}
