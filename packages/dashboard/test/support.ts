/**
 * What the dashboard tests share: the databases (PostgreSQL from `SQLINBOX_PG_URL`, default
 * `postgres://postgres@127.0.0.1:5432/test`, and a SQLite file), a queue table made and dropped
 * per test file, and the four servers the handler mounts in.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { type Adapter, type AnyTable, inbox } from '@sqlinbox/core';
import { pg } from '@sqlinbox/dialect-postgres/pg';
import { sqlite } from '@sqlinbox/dialect-sqlite';
import express from 'express';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { Hono } from 'hono';
import pgLib from 'pg';
import type { Dashboard } from '../src/index.js';

export interface Db {
  readonly name: string;
  open(): Promise<Adapter & { close(): Promise<void> }>;
  cleanup(): void;
}

export function databases(): Db[] {
  const dir = mkdtempSync(join(tmpdir(), 'sqlinbox-dashboard-'));
  const file = join(dir, 'dashboard.db');
  return [
    {
      name: 'PostgreSQL',
      async open() {
        const pool = new pgLib.Pool({
          connectionString: process.env.SQLINBOX_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
          max: 4,
        });
        pool.on('error', () => undefined);
        return { ...pg(pool), close: () => pool.end() };
      },
      cleanup: () => undefined,
    },
    {
      name: 'SQLite',
      async open() {
        const adapter = sqlite({ filename: file, connections: 4 });
        return adapter;
      },
      cleanup: () => rmSync(dir, { recursive: true, force: true }),
    },
  ];
}

/** A fresh queue table (lease form, retry_after, a group column) with a dead-letter group `dead`. */
export async function createQueue(
  adapter: Adapter,
  opts: {
    errorColumn?: boolean;
    control?: boolean;
    record?: boolean;
    uniqueKey?: boolean;
    /** Flow tables of the test's own, and a processed_at column (done rows stay). */
    flows?: boolean;
  } = {},
): Promise<{ table: AnyTable; drop(): Promise<void> }> {
  const name = `dash_${randomBytes(4).toString('hex')}`;
  // A control table of the test's own (pause and resume), dropped with the queue's.
  const control = `${name}_ctl`;
  const flow = `${name}_flow`;
  const table = inbox({
    ...(opts.flows ? { flows: { table: flow }, processedAt: 'processed_at', result: 'result' } : {}),
    ...(opts.errorColumn ? { columns: ['last_error'] } : {}),
    ...(opts.control ? { control: { table: control } } : {}),
    ...(opts.uniqueKey ? { uniqueKey: 'job_key' } : {}),
    ...(opts.record
      ? { lastError: 'last_error', errorClass: 'error_class', failedAt: 'failed_at', createdAt: 'created_at' }
      : {}),
    table: name,
    id: { column: 'id', generated: true },
    payload: 'payload',
    attempt: { column: 'attempt', generated: true },
    lease: 'locked_until',
    retryAfter: 'retry_after',
    group: 'grp',
  }) as AnyTable;
  const conn = await adapter.pool.acquire();
  try {
    for (const stmt of adapter.dialect.ddl(table)) await conn.query(stmt);
  } finally {
    adapter.pool.release(conn);
  }
  return {
    table,
    async drop() {
      const c = await adapter.pool.acquire();
      try {
        await c.query(`DROP TABLE IF EXISTS ${name}`);
        if (opts.control) await c.query(`DROP TABLE IF EXISTS ${control}`);
        if (opts.flows) {
          await c.query(`DROP TABLE IF EXISTS ${flow}`);
          await c.query(`DROP TABLE IF EXISTS ${flow}_parent`);
        }
      } finally {
        adapter.pool.release(c);
      }
    },
  };
}

/** `Express+urlencoded`: an app that parses form bodies itself before the dashboard sees them. */
export type Framework = 'node:http' | 'Express' | 'Express+urlencoded' | 'Fastify' | 'Hono';
export const FRAMEWORKS: readonly Framework[] = ['node:http', 'Express', 'Fastify', 'Hono'];

export interface Mounted {
  readonly origin: string;
  close(): Promise<void>;
}

/**
 * Serves each dashboard at its base path in one server of the given framework, on a free port of
 * 127.0.0.1, the way the README shows; anything else answers 418 (so a test sees which server
 * answered).
 */
export async function mount(
  framework: Framework,
  dashboards: readonly { base: string; handler: Dashboard }[],
): Promise<Mounted> {
  const under = (path: string, base: string) => path === base || path.startsWith(`${base}/`);
  if (framework === 'node:http') {
    const server = createServer((req, res) => {
      const found = dashboards.find((d) => under(new URL(req.url ?? '/', 'http://x').pathname, d.base));
      if (found) return found.handler(req, res);
      res.writeHead(418).end('not the dashboard');
    });
    return listen(server);
  }
  if (framework === 'Express' || framework === 'Express+urlencoded') {
    const app = express();
    if (framework === 'Express+urlencoded') app.use(express.urlencoded({ extended: false }));
    for (const d of dashboards) app.use(d.base, d.handler);
    app.use((_req, res) => {
      res.status(418).send('not the dashboard');
    });
    return listen(createServer(app));
  }
  if (framework === 'Fastify') {
    const app = Fastify();
    for (const d of dashboards) {
      await app.register(async (scope) => {
        // The dashboard reads its own form bodies: every content type passes through unread.
        scope.removeAllContentTypeParsers();
        scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
        const route = (request: FastifyRequest, reply: FastifyReply) => {
          reply.hijack();
          d.handler(request.raw, reply.raw);
        };
        scope.all(d.base, route);
        scope.all(`${d.base}/*`, route);
      });
    }
    app.setNotFoundHandler((_request, reply) => {
      reply.code(418).send('not the dashboard');
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = app.server.address() as AddressInfo;
    return { origin: `http://127.0.0.1:${port}`, close: () => app.close() };
  }
  const app = new Hono();
  for (const d of dashboards) {
    app.all(d.base, (c) => d.handler.fetch(c.req.raw));
    app.all(`${d.base}/*`, (c) => d.handler.fetch(c.req.raw));
  }
  app.notFound((c) => c.text('not the dashboard', 418));
  return new Promise((resolve) => {
    const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => {
      resolve({
        origin: `http://127.0.0.1:${info.port}`,
        close: () => new Promise<void>((done) => server.close(() => done())),
      });
    });
  });
}

function listen(server: Server): Promise<Mounted> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        origin: `http://127.0.0.1:${port}`,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

/** The value of the dashboard's CSRF cookie in a response, and the token its forms carry. */
export function tokens(
  res: Response,
  body: string,
): { cookie: string | undefined; form: string | undefined } {
  const set = res.headers.getSetCookie().find((c) => c.startsWith('sqlinbox_csrf='));
  const cookie = set?.split(';')[0];
  const form = /name="csrf" value="([^"]+)"/.exec(body)?.[1];
  return { cookie, form };
}
