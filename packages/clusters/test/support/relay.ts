/**
 * A TCP relay on 127.0.0.1 that forwards each new connection to the port it points at now: one
 * address that follows the primary, as a DNS name or a proxy would after a failover. Switching it
 * sends new connections to the new port and, by default, leaves the open ones where they are (a
 * DNS change cuts no connection); `cut` also closes them, as a proxy that marks a server down does.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

export class Relay {
  private readonly pairs = new Set<[Socket, Socket]>();

  private constructor(
    private readonly server: Server,
    /** The relay's own port. */
    readonly port: number,
    private target: number,
  ) {
    server.on('connection', (client) => this.pipe(client));
  }

  /** Starts a relay on a free port of 127.0.0.1, pointing at `target`. */
  static async start(target: number): Promise<Relay> {
    const server = createServer();
    await new Promise<void>((res, rej) => {
      server.once('error', rej);
      server.listen(0, '127.0.0.1', () => res());
    });
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('the relay has no port');
    return new Relay(server, address.port, target);
  }

  /** New connections go to `target` from now on; `cut` closes the open ones too. */
  switchTo(target: number, options: { cut?: boolean } = {}): void {
    this.target = target;
    if (options.cut === true) this.destroyAll();
  }

  /** Connections open through the relay now. */
  get open(): number {
    return this.pairs.size;
  }

  /** Closes every connection and stops listening. */
  async close(): Promise<void> {
    this.destroyAll();
    await new Promise<void>((res) => this.server.close(() => res()));
  }

  private destroyAll(): void {
    for (const [a, b] of this.pairs) {
      a.destroy();
      b.destroy();
    }
  }

  private pipe(client: Socket): void {
    const upstream = connect({ host: '127.0.0.1', port: this.target });
    const pair: [Socket, Socket] = [client, upstream];
    this.pairs.add(pair);
    const end = () => {
      this.pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.pipe(upstream);
    upstream.pipe(client);
  }
}
