import { type Html, html } from './html.js';

/**
 * One line of a chart: its readings, a null leaving a gap. A null marked `unknown` is a reading
 * that could not say the value (the lag of rows that carry no time): drawn as a band labelled
 * "unknown", never as 0.
 */
export interface Series {
  readonly label: string;
  /** A CSS class that colours it (`s-ready`, `s-work`, ...). */
  readonly cls: string;
  readonly points: readonly {
    readonly at: number;
    readonly value: number | null;
    readonly unknown?: boolean;
  }[];
}

const W = 440;
const H = 160;
const LEFT = 40;
const RIGHT = 10;
const TOP = 10;
const BOTTOM = 24;

/** The smallest of 1, 2, 2.5, 5 times a power of ten at least `v`. */
function niceCeil(v: number): number {
  if (v <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

function label(v: number): string {
  if (v >= 10_000) return `${Math.round(v / 1000)}k`;
  return Number.isInteger(v) ? String(v) : v.toFixed(1);
}

/** A span before now as the x axis labels it: seconds under two minutes, else minutes. */
function ago(ms: number): string {
  if (ms < 120_000) return `${Math.round(ms / 1000)} s`;
  const min = ms / 60_000;
  return `${Number.isInteger(min) ? min : min.toFixed(1)} min`;
}

/**
 * A small line with no axes, for a table cell: `values` spread evenly over the width, scaled to
 * their own maximum.
 */
export function sparkline(label: string, cls: string, values: readonly number[]): Html {
  const w = 120;
  const h = 26;
  if (values.length < 2) return html`<span class="muted">–</span>`;
  const top = Math.max(1, ...values);
  const points = values.map(
    (v, i) =>
      `${((i / (values.length - 1)) * (w - 2) + 1).toFixed(1)},${(h - 2 - (v / top) * (h - 4)).toFixed(1)}`,
  );
  return html`<svg class="spark" viewBox="0 0 ${w} ${h}" width="${w}" height="${h}" role="img" aria-label="${label}"><polyline class="line ${cls}" points="${points.join(' ')}"/></svg>`;
}

/**
 * A line chart as inline SVG, drawn on the server: the series over [from, to], a y axis from 0 to
 * a round maximum, the x axis in minutes before now. Values are numbers the dashboard computed;
 * the labels go through {@link html}, so nothing in them is markup.
 */
export function lineChart(opts: {
  readonly title: string;
  readonly unit: string;
  readonly series: readonly Series[];
  readonly from: number;
  readonly to: number;
  readonly empty?: string;
}): Html {
  const { from, to } = opts;
  const values = opts.series.flatMap((s) => s.points.map((p) => p.value).filter((v) => v !== null));
  const top = niceCeil(Math.max(0, ...values));
  const x = (at: number) => LEFT + ((at - from) / Math.max(1, to - from)) * (W - LEFT - RIGHT);
  const y = (v: number) => TOP + (1 - v / top) * (H - TOP - BOTTOM);
  const grid = [0, top / 2, top].map(
    (v) =>
      html`<line class="grid" x1="${LEFT}" x2="${W - RIGHT}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}"/><text class="tick" x="${LEFT - 6}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end">${label(v)}</text>`,
  );
  const ticks = [0, 0.5, 1].map((f) => {
    const at = from + f * (to - from);
    const text = f === 1 ? 'now' : `-${ago(to - at)}`;
    return html`<text class="tick" x="${x(at).toFixed(1)}" y="${H - 6}" text-anchor="${f === 0 ? 'start' : f === 1 ? 'end' : 'middle'}">${text}</text>`;
  });
  const lines = opts.series.flatMap((s) => {
    const runs: string[][] = [[]];
    for (const p of s.points) {
      if (p.value === null) runs.push([]);
      else runs[runs.length - 1]!.push(`${x(p.at).toFixed(1)},${y(p.value).toFixed(1)}`);
    }
    return runs
      .filter((r) => r.length > 0)
      .map((r) =>
        r.length === 1
          ? html`<circle class="line ${s.cls}" cx="${r[0]!.split(',')[0]}" cy="${r[0]!.split(',')[1]}" r="2"/>`
          : html`<polyline class="line ${s.cls}" data-series="${s.label}" points="${r.join(' ')}"/>`,
      );
  });
  // Spans of readings that could not tell the value: a band from the first of each run to the next
  // reading (or to now), since the value stayed unknown until a reading said otherwise.
  const unknownRuns: { from: number; to: number }[] = [];
  for (const s of opts.series) {
    let run: { from: number; to: number } | undefined;
    for (const p of s.points) {
      if (run !== undefined) run.to = p.at;
      if (p.value === null && p.unknown === true) {
        if (run === undefined) {
          run = { from: p.at, to };
          unknownRuns.push(run);
        }
        run.to = to;
      } else run = undefined;
    }
  }
  const bands = unknownRuns.map((run) => {
    const x0 = Math.max(LEFT, x(run.from) - 2);
    const x1 = Math.min(W - RIGHT, x(run.to));
    const width = Math.max(4, x1 - x0);
    // The label sits in the band, or just left of it where the band is too narrow to hold it.
    const inside = width >= 52;
    return html`<rect class="unknown" x="${x0.toFixed(1)}" y="${TOP}" width="${width.toFixed(1)}" height="${H - TOP - BOTTOM}"><title>unknown</title></rect><text class="unknown-label" x="${(inside ? x0 + width / 2 : x0 - 3).toFixed(1)}" y="${((H - BOTTOM + TOP) / 2 + 4).toFixed(1)}" text-anchor="${inside ? 'middle' : 'end'}">unknown</text>`;
  });
  const nothing =
    values.length === 0 && unknownRuns.length === 0
      ? html`<text class="empty" x="${W / 2}" y="${H / 2}" text-anchor="middle">${opts.empty ?? 'no readings yet'}</text>`
      : '';
  return html`<figure class="chart">
<figcaption>${opts.title} <span class="unit">(${opts.unit})</span>
${opts.series.map((s) => html`<span class="key ${s.cls}">${s.label}</span>`)}${unknownRuns.length > 0 ? html`<span class="key unknown">unknown</span>` : ''}</figcaption>
<svg viewBox="0 0 ${W} ${H}" role="img" aria-label="${opts.title}"><title>${opts.title}</title>${grid}${bands}${ticks}${lines}${nothing}</svg>
</figure>`;
}
