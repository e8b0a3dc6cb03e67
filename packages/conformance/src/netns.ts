import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * A network of a test's own: a network namespace (`ip netns`) joined to the host by a veth pair on
 * an unused /30 in 10.231.0.0/16, and a TCP relay in the host namespace on the veth's host-side
 * address that forwards each connection to a local server port (the database servers listen on
 * 127.0.0.1 only). A process started with {@link NetLink.spawn} runs inside the namespace and
 * reaches the server at `host:port` through the veth, so the test can cut the link
 * ({@link NetLink.cut}: the host side down, both directions stop), restore it, or slow it
 * ({@link NetLink.slow}). Needs root and iproute2; names start with `sqi-`/`sqi`, so two runs never
 * collide, and {@link NetLink.close} removes everything it made.
 */
export interface NetLink {
  /** The namespace's name. */
  readonly ns: string;
  /** The relay's address, as the namespace sees it (the veth's host side). */
  readonly host: string;
  /** The relay's port. */
  readonly port: number;
  /** Stops all traffic on the link (the host-side veth down). */
  cut(): Promise<void>;
  /** Brings the link back up. */
  restore(): Promise<void>;
  /**
   * Slows the link. The kernel here has no `netem` (nor `gact`), so: each direction of the relay
   * holds every chunk `delayMs` ± `jitterMs` (order kept), and a token bucket (`tc tbf`) on both
   * ends of the veth sends at `rate` and queues at most `queueBytes`: a burst beyond that is
   * dropped, real packet loss that TCP retransmits.
   */
  slow(opts: SlowLink): Promise<void>;
  /** Packets the token buckets of {@link slow} dropped so far (both ends). */
  dropped(): Promise<number>;
  /** Back to full speed: no relay delay, no token buckets. */
  clear(): Promise<void>;
  /** Starts `node <script>` inside the namespace, with an IPC channel (as `fork` would). */
  spawn(script: string, env: NodeJS.ProcessEnv): ChildProcess;
  /** Kills what {@link spawn} started, stops the relay, deletes the veth pair and the namespace. */
  close(): Promise<void>;
}

/** How {@link NetLink.slow} slows the link. */
export interface SlowLink {
  /** The relay's delay per chunk, each direction, in milliseconds. */
  readonly delayMs: number;
  /** Uniform jitter around the delay, in milliseconds. */
  readonly jitterMs: number;
  /** The veth's send rate each way, in `tc` units, e.g. `2mbit`. */
  readonly rate: string;
  /** The token bucket's queue, in bytes; a burst beyond it is dropped. */
  readonly queueBytes: number;
}

/**
 * Copies `from` to `to`, each chunk held until its time comes (the delay of the moment), in order.
 * The end of `from` ends `to` once what it sent before has gone.
 */
function relay(from: Socket, to: Socket, delay: () => number): void {
  const queue: { due: number; chunk: Buffer | null }[] = [];
  let last = 0;
  let timer: NodeJS.Timeout | undefined;
  const drain = () => {
    timer = undefined;
    const now = Date.now();
    while (queue.length > 0 && queue[0]!.due <= now) {
      const { chunk } = queue.shift()!;
      if (chunk === null) to.end();
      else to.write(chunk);
    }
    if (queue.length > 0) timer = setTimeout(drain, queue[0]!.due - now);
  };
  const push = (chunk: Buffer | null) => {
    last = Math.max(last, Date.now() + delay());
    queue.push({ due: last, chunk });
    if (timer === undefined) drain();
  };
  from.on('data', (chunk: Buffer) => push(chunk));
  from.on('end', () => push(null));
  to.on('close', () => clearTimeout(timer));
}

async function ip(...args: string[]): Promise<void> {
  await run('ip', args);
}

/** A /30 in 10.231.0.0/16 that no interface of the host uses yet; answers its first address. */
async function freeSubnet(): Promise<[number, number]> {
  const { stdout } = await run('ip', ['-4', '-o', 'addr', 'show']);
  for (let i = 0; i < 100; i++) {
    const b = randomBytes(2);
    const third = b[0]!;
    const fourth = b[1]! & 0xfc;
    const used = stdout.split('\n').some((line) => {
      const m = /inet 10\.231\.(\d+)\.(\d+)/.exec(line);
      return m !== null && Number(m[1]) === third && (Number(m[2]) & 0xfc) === fourth;
    });
    if (!used) return [third, fourth];
  }
  throw new Error('no free /30 in 10.231.0.0/16');
}

/**
 * Makes the namespace, the veth pair and the relay to `127.0.0.1:serverPort`. Fails (never skips)
 * where the machine cannot make a namespace: the scenarios that need one are then not proven.
 */
export async function openNetLink(serverPort: number): Promise<NetLink> {
  const tag = randomBytes(4).toString('hex');
  const ns = `sqi-${tag}`;
  const hostIf = `sqi${tag}h`;
  const nsIf = `sqi${tag}c`;
  const children = new Set<ChildProcess>();
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let made = { ns: false, veth: false };

  const close = async (): Promise<void> => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await Promise.all(
      [...children].map(
        (c) =>
          new Promise<void>((r) => {
            if (c.exitCode !== null || c.signalCode !== null) r();
            else c.once('exit', () => r());
          }),
      ),
    );
    for (const s of sockets) s.destroy();
    if (server !== undefined) await new Promise<void>((r) => server!.close(() => r()));
    server = undefined;
    // Deleting one end of a veth pair deletes the other (and its qdiscs).
    if (made.veth) await ip('link', 'del', hostIf).catch(() => {});
    if (made.ns) await ip('netns', 'del', ns).catch(() => {});
    made = { ns: false, veth: false };
  };

  try {
    const [third, fourth] = await freeSubnet();
    const host = `10.231.${third}.${fourth + 1}`;
    const inner = `10.231.${third}.${fourth + 2}`;
    await ip('netns', 'add', ns);
    made.ns = true;
    await ip('link', 'add', hostIf, 'type', 'veth', 'peer', 'name', nsIf);
    made.veth = true;
    await ip('link', 'set', nsIf, 'netns', ns);
    await ip('addr', 'add', `${host}/30`, 'dev', hostIf);
    await ip('link', 'set', hostIf, 'up');
    await ip('netns', 'exec', ns, 'ip', 'addr', 'add', `${inner}/30`, 'dev', nsIf);
    await ip('netns', 'exec', ns, 'ip', 'link', 'set', nsIf, 'up');
    await ip('netns', 'exec', ns, 'ip', 'link', 'set', 'lo', 'up');

    // The relay: bytes in, the same bytes out (later, while the link is slowed).
    let slowed: SlowLink | undefined;
    const delay = () =>
      slowed === undefined ? 0 : Math.max(0, slowed.delayMs + (Math.random() * 2 - 1) * slowed.jitterMs);
    const srv = createServer((inbound) => {
      const outbound = tcpConnect(serverPort, '127.0.0.1');
      for (const s of [inbound, outbound]) {
        sockets.add(s);
        s.setNoDelay(true);
        s.on('close', () => sockets.delete(s));
      }
      inbound.on('error', () => outbound.destroy());
      outbound.on('error', () => inbound.destroy());
      relay(inbound, outbound, delay);
      relay(outbound, inbound, delay);
    });
    server = srv;
    await new Promise<void>((resolve, reject) => {
      srv.once('error', reject);
      srv.listen(0, host, () => resolve());
    });
    const port = (srv.address() as { port: number }).port;

    const tc = (inNs: boolean, args: readonly string[]) =>
      inNs ? ip('netns', 'exec', ns, 'tc', ...args) : run('tc', [...args]).then(() => {});
    const ends: [string, boolean][] = [
      [hostIf, false],
      [nsIf, true],
    ];

    return {
      ns,
      host,
      port,
      cut: () => ip('link', 'set', hostIf, 'down'),
      restore: () => ip('link', 'set', hostIf, 'up'),
      async slow(opts) {
        for (const [dev, inNs] of ends) {
          await tc(
            inNs,
            ['qdisc', 'replace', 'dev', dev, 'root', 'tbf', 'rate', opts.rate].concat([
              'burst',
              '3000',
              'limit',
              String(opts.queueBytes),
            ]),
          );
        }
        slowed = opts;
      },
      async dropped() {
        let n = 0;
        for (const [dev, inNs] of ends) {
          const args = ['-s', 'qdisc', 'show', 'dev', dev];
          const { stdout } = inNs
            ? await run('ip', ['netns', 'exec', ns, 'tc', ...args])
            : await run('tc', args);
          for (const m of stdout.matchAll(/dropped (\d+)/g)) n += Number(m[1]);
        }
        return n;
      },
      async clear() {
        slowed = undefined;
        for (const [dev, inNs] of ends) await tc(inNs, ['qdisc', 'del', 'dev', dev, 'root']).catch(() => {});
      },
      spawn(script, env) {
        const child = spawn('ip', ['netns', 'exec', ns, process.execPath, script], {
          env,
          stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
        });
        children.add(child);
        return child;
      },
      close,
    };
  } catch (err) {
    await close();
    throw new Error(
      `cannot make a network namespace for the partition scenarios (root and iproute2 needed): ${
        err instanceof Error ? err.message : String(err)
      }`,
      { cause: err },
    );
  }
}
