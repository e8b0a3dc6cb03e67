/**
 * A child process runs one timed case, so its peak RSS and CPU are its own: the spec comes in
 * BENCH_SPEC, the result goes back over IPC, control messages (W5) come and go the same way.
 */
const spec = JSON.parse(process.env.BENCH_SPEC);
const inbox = [];
const waiting = new Map();
process.on('message', (m) => {
  const w = waiting.get(m.type);
  if (w) {
    waiting.delete(m.type);
    w(m);
  } else inbox.push(m);
});
const control = {
  send: (m) => process.send(m),
  next: (type) =>
    new Promise((resolve) => {
      const i = inbox.findIndex((m) => m.type === type);
      if (i >= 0) resolve(inbox.splice(i, 1)[0]);
      else waiting.set(type, resolve);
    }),
};

async function main() {
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
