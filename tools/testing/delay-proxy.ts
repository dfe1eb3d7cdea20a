/**
 * A TCP proxy on 127.0.0.1 that delays every chunk by half a round-trip time in each direction,
 * so that a client talking to a loopback server through it sees a real network's round trips
 * (TLS handshakes included). For the benchmark's wire-cost figure. Never touches another address.
 */
import type { AddressInfo, Socket } from 'node:net';
import * as net from 'node:net';

export class DelayProxy {
  /** Starts a proxy to `target` (`host:port` on loopback) with `rttMs` of round-trip time. */
  static async start(targetPort: number, rttMs: number): Promise<DelayProxy> {
    const p = new DelayProxy(targetPort, rttMs);
    await new Promise<void>((resolve) => p.server.listen(0, '127.0.0.1', resolve));
    return p;
  }

  private readonly server: net.Server;
  private readonly sockets = new Set<Socket>();

  private constructor(targetPort: number, private readonly rttMs: number) {
    this.server = net.createServer((client) => {
      const upstream = net.connect(targetPort, '127.0.0.1');
      // A network delays bytes; it does not hold them back. With Nagle's algorithm on these two
      // sockets, a small write waited for the ACK of the one before, which Linux delays by up to
      // 40 ms on loopback: stalls of ~40 ms that no network adds (a check measured 4.3-5.0 round
      // trips instead of 3.3).
      client.setNoDelay(true);
      upstream.setNoDelay(true);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => { client.destroy(); upstream.destroy(); });
      }
      this.pipe(client, upstream);
      this.pipe(upstream, client);
    });
  }

  /** The proxy's port on 127.0.0.1. */
  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  private pipe(from: Socket, to: Socket): void {
    const half = this.rttMs / 2;
    from.on('data', (chunk) => setTimeout(() => { if (!to.destroyed) to.write(chunk); }, half));
    from.on('end', () => setTimeout(() => to.end(), half));
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
