/**
 * A child process runs one timed case, so its peak RSS and CPU are its own: the spec comes in
 * BENCH_SPEC, the result goes back over IPC, control messages (W5's, W6's) come and go the same
 * way: handed to the handlers `on` registers, or kept for `next`. A spec with a `role` is a W6
 * process (sustained.mjs forks it): the producer or a consumer of one case.
 */
import { EventEmitter } from 'node:events';

const spec = JSON.parse(process.env.BENCH_SPEC);
const events = new EventEmitter();
const waiting = new Map();
const inbox = [];
process.on('message', (m) => {
  if (events.listenerCount(m.type) > 0) events.emit(m.type, m);
  else if (waiting.has(m.type)) {
    const w = waiting.get(m.type);
    waiting.delete(m.type);
    w(m);
  } else inbox.push(m);
});
const control = {
  send: (m) => process.send(m),
  on: (type, fn) => {
    events.on(type, fn);
    for (let i = inbox.findIndex((m) => m.type === type); i >= 0; i = inbox.findIndex((m) => m.type === type))
      fn(inbox.splice(i, 1)[0]);
  },
  next: (type) =>
    new Promise((resolve) => {
      const i = inbox.findIndex((m) => m.type === type);
      if (i >= 0) resolve(inbox.splice(i, 1)[0]);
      else waiting.set(type, resolve);
    }),
};

async function main() {
  if (spec.role !== undefined) {
    const w6 = await import('./run-sustained.mjs');
    const result = await w6[spec.role](spec, control);
    process.send({ type: 'result', result }, () => process.exit(0));
    return;
  }
  // Only the runner the case needs is loaded, so its RSS carries no other library.
  const lib = await import(
    spec.kind === 'sqlinbox'
      ? './run-sqlinbox.mjs'
      : spec.kind === 'raw'
        ? './run-raw.mjs'
        : './run-peers.mjs'
  );
  const fn = lib[spec.workload];
  if (typeof fn !== 'function') throw new Error(`${spec.kind} has no ${spec.workload}`);
  const result = await fn(spec, control);
  result.maxRssMB = Math.round(process.resourceUsage().maxRSS / 102.4) / 10;
  process.send({ type: 'result', result }, () => process.exit(0));
}

main().catch((err) => {
  process.send({ type: 'error', message: String(err?.stack ?? err) }, () => process.exit(1));
});
