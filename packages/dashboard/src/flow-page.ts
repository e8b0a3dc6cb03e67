import type { FlowNode, FlowParentRef } from '@sqlinbox/core';
import { type Html, html } from './html.js';
import { page, q, type View } from './pages.js';

/** A node's state as the tree shows it: the admin API's word, spaced. */
const LABEL: Record<string, string> = {
  waiting: 'waiting',
  ready: 'ready',
  delayed: 'delayed',
  inWork: 'in work',
  done: 'done',
  dead: 'dead',
  missing: 'missing',
};

/** Children a parent still waits for, as words ('' for none). */
function waitsFor(pending: number | undefined): string {
  if (pending === undefined || pending <= 0) return '';
  return `waits for ${pending} child${pending === 1 ? '' : 'ren'}`;
}

/** The row link of a node, or its id alone where the row is gone. */
function rowLink(view: View, queue: string, n: { id: string; state: string }) {
  return n.state === 'missing'
    ? html`<span class="node-id">#${n.id}</span>`
    : html`<a class="node-id" href="${q(view, queue, `/rows/${encodeURIComponent(n.id)}`)}">#${n.id}</a>`;
}

function nodeItem(view: View, queue: string, n: FlowNode): Html {
  const waits = waitsFor(n.pending);
  return html`<li data-node="${n.id}" data-state="${n.state}"${n.edge === undefined ? '' : html` data-edge="${n.edge}"`}><div class="node"><b class="node-name">${n.name === '' ? '(root)' : n.name}</b> ${rowLink(view, queue, n)} <span class="state state-${n.state}" data-node-state>${LABEL[n.state] ?? n.state}</span>${n.edge === undefined ? '' : html` <span class="edge edge-${n.edge}" data-node-edge>edge ${n.edge}</span>`}${waits === '' ? '' : html` <span class="waits" data-node-waits>${waits}</span>`}</div>${
    n.children.length === 0 ? '' : html`<ul>${n.children.map((c) => nodeItem(view, queue, c))}</ul>`
  }</li>`;
}

/**
 * A flow as a tree from one row (read-only): each job's name, id and state, its edge to the job
 * above, what a parent still waits for; above it, the parents the row itself runs before.
 */
export function flowPage(
  view: View,
  queue: string,
  table: string,
  tree: FlowNode,
  parents: readonly FlowParentRef[],
): string {
  const up =
    parents.length === 0
      ? ''
      : html`<p id="flow-up">Row ${tree.id} is a child of ${parents.map(
          (p, i) =>
            html`${i === 0 ? '' : ', '}<a href="${q(view, queue, `/flows/${encodeURIComponent(p.id)}`)}" data-parent="${p.id}">#${p.id}</a> (as ${p.name}, edge ${p.edge})`,
        )}.</p>`;
  return page(
    view,
    `${queue} flow ${tree.id}`,
    html`<p><a href="${q(view, queue)}">← ${queue}</a>${tree.state === 'missing' ? '' : html` · <a href="${q(view, queue, `/rows/${encodeURIComponent(tree.id)}`)}">row ${tree.id}</a>`}</p>
<h1>Flow from row ${tree.id} <small>${queue}${queue === table ? '' : ` (table ${table})`}</small></h1>
${up}
<ul class="flow" id="flow">${nodeItem(view, queue, tree)}</ul>
<p class="muted" id="flow-legend">A job runs after the jobs below it (its children). Waiting: held until its children settle. An edge is pending until its child is done or dead. Missing: the row is no longer in the table (a table that keeps no processed rows deletes them at the ack).</p>`,
  );
}
