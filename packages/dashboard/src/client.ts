/**
 * The page's only script, served inline under the page's CSP nonce. It reads its settings from the
 * body's data attributes (never from markup built out of row data) and does two things:
 * asks to confirm a form that carries `data-confirm`, and every `data-refresh` milliseconds
 * fetches the page again with `x-sqlinbox-live: 1` (the server then skips the row lists) and swaps
 * in the fresh elements marked `data-live`, matched by id. The parsed page never runs scripts.
 */
export const CLIENT_JS = `(() => {
  document.addEventListener('submit', (event) => {
    const form = event.target;
    const question = form instanceof HTMLFormElement ? form.dataset.confirm : undefined;
    if (question && !window.confirm(question)) event.preventDefault();
  });
  const every = Number(document.body.dataset.refresh);
  if (!(every > 0)) return;
  let busy = false;
  setInterval(async () => {
    if (busy || document.hidden) return;
    busy = true;
    try {
      const res = await fetch(location.href, { headers: { 'x-sqlinbox-live': '1' }, credentials: 'same-origin' });
      if (!res.ok) return;
      const fresh = new DOMParser().parseFromString(await res.text(), 'text/html');
      for (const el of document.querySelectorAll('[data-live]')) {
        const next = fresh.getElementById(el.id);
        if (next) el.replaceWith(document.importNode(next, true));
      }
    } catch {
      // the next tick tries again
    } finally {
      busy = false;
    }
  }, every);
})();`;

export const CSS = `
:root { color-scheme: light dark; --fg: #1d232a; --muted: #66707c; --line: #d8dde3; --bg: #fff; --card: #f5f7f9;
  --ready: #2f7ed8; --delayed: #9a6fd0; --work: #e49b0f; --dead: #d64541; --done: #2e9e5b; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6e9ec; --muted: #9aa4ae; --line: #39414a; --bg: #15191d; --card: #1d2228; } }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, Segoe UI, Roboto, sans-serif; color: var(--fg); background: var(--bg); }
header { display: flex; gap: 1rem; align-items: baseline; padding: .7rem 1.2rem; border-bottom: 1px solid var(--line); }
header a { color: inherit; text-decoration: none; font-weight: 600; }
header .mode { color: var(--muted); font-size: 12px; }
main { padding: 1rem 1.2rem 3rem; max-width: 1200px; }
h1 { font-size: 20px; margin: .2rem 0 1rem; } h1 small { color: var(--muted); font-weight: 400; font-size: 13px; }
h2 { font-size: 15px; margin: 1.6rem 0 .6rem; }
a { color: var(--ready); }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .35rem .6rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { color: var(--muted); font-weight: 500; font-size: 12px; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
code, pre, .payload { font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.payload { max-width: 32rem; overflow-wrap: anywhere; white-space: pre-wrap; }
.error { color: var(--dead); max-width: 22rem; overflow-wrap: anywhere; }
pre { background: var(--card); padding: .8rem; overflow: auto; max-height: 32rem; white-space: pre-wrap; overflow-wrap: anywhere; }
.cards { display: flex; gap: .8rem; flex-wrap: wrap; }
.card { background: var(--card); padding: .6rem .9rem; border-radius: 6px; min-width: 7.5rem; }
.card b { display: block; font-size: 22px; font-variant-numeric: tabular-nums; }
.card span { color: var(--muted); font-size: 12px; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(320px, 1fr)); gap: 1rem; margin-top: 1rem; }
.chart { margin: 0; background: var(--card); border-radius: 6px; padding: .5rem .6rem; }
.chart figcaption { font-size: 12px; color: var(--muted); display: flex; gap: .7rem; flex-wrap: wrap; }
.chart svg { width: 100%; height: auto; display: block; }
.grid { stroke: var(--line); stroke-width: 1; } .tick, .empty, .unknown-label { fill: var(--muted); font-size: 11px; }
rect.unknown { fill: var(--line); opacity: .55; } .key.unknown { color: var(--muted); } .key.unknown::before { background: var(--line); }
.line { fill: none; stroke-width: 2; } circle.line { stroke: none; }
.key::before { content: ""; display: inline-block; width: .7em; height: .7em; border-radius: 2px; margin-right: .3em; background: currentColor; }
.s-ready { stroke: var(--ready); fill: var(--ready); color: var(--ready); } polyline.s-ready, polyline.s-delayed, polyline.s-work, polyline.s-dead, polyline.s-done, polyline.s-lag { fill: none; }
.s-delayed { stroke: var(--delayed); color: var(--delayed); } .s-work { stroke: var(--work); color: var(--work); }
.s-dead { stroke: var(--dead); color: var(--dead); } .s-done { stroke: var(--done); color: var(--done); } .s-lag { stroke: var(--work); color: var(--work); }
circle.s-ready, circle.s-delayed, circle.s-work, circle.s-dead, circle.s-done, circle.s-lag { fill: currentColor; }
.tabs { display: flex; gap: .3rem; margin: 1.2rem 0 .6rem; flex-wrap: wrap; }
.tabs a { padding: .25rem .7rem; border-radius: 999px; text-decoration: none; color: var(--fg); background: var(--card); }
.tabs a[aria-current] { background: var(--ready); color: #fff; }
.state { font-size: 12px; padding: .05rem .45rem; border-radius: 4px; background: var(--card); }
.state-dead { color: var(--dead); } .state-inWork { color: var(--work); } .state-ready { color: var(--ready); } .state-done { color: var(--done); } .state-paused { color: var(--dead); font-weight: 600; }
form.inline { display: inline; margin: 0; }
td.actions { white-space: nowrap; }
.spark { display: block; }
button { font: inherit; font-size: 12px; padding: .2rem .6rem; border-radius: 4px; border: 1px solid var(--line); background: var(--bg); color: var(--fg); cursor: pointer; }
button.danger { color: var(--dead); border-color: var(--dead); }
.notice { background: var(--card); border-left: 3px solid var(--done); padding: .5rem .8rem; margin: .6rem 0; }
.problem { border-left-color: var(--dead); }
.muted { color: var(--muted); }
.find { display: flex; gap: .4rem; margin-top: 1rem; } .find input { font: inherit; padding: .2rem .4rem; }
.bulk { display: flex; gap: .5rem; margin-top: .8rem; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .3rem 1rem; } dt { color: var(--muted); } dd { margin: 0; }
.wide { overflow-x: auto; }
.flow, .flow ul { list-style: none; margin: 0; padding: 0; }
.flow ul { margin-left: .5rem; padding-left: .8rem; border-left: 1px solid var(--line); }
.flow li { margin: .25rem 0; } .flow .node { overflow-wrap: anywhere; }
.flow .edge, .flow .waits { color: var(--muted); font-size: 12px; }
.edge-dead { color: var(--dead); } .state-waiting { color: var(--delayed); } .state-missing { color: var(--muted); }
@media (max-width: 640px) {
  header { padding: .6rem .8rem; } main { padding: .8rem .8rem 2rem; }
  .find { flex-wrap: wrap; } .find input { flex: 1 1 10rem; min-width: 0; }
  table.rows thead { display: none; }
  table.rows, table.rows tbody, table.rows tr, table.rows td { display: block; width: 100%; }
  table.rows tr { border-bottom: 1px solid var(--line); padding: .4rem 0; }
  table.rows td { display: flex; gap: .6rem; border: 0; padding: .12rem 0; text-align: left; }
  table.rows td::before { content: attr(data-label); flex: 0 0 5.5rem; color: var(--muted); font-size: 12px; }
  table.rows td.num { text-align: left; }
  table.rows .payload, table.rows .error { max-width: none; min-width: 0; }
  dl { grid-template-columns: 1fr; } dd { margin-bottom: .4rem; }
}
`;
