import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  type Adapter,
  Admin,
  type AdminRow,
  type AnyTable,
  type DeadLetterTarget,
  type QueueStats,
  type Selection,
  type SkipReason,
  type TableDescription,
} from '@sqlinbox/core';
import { parseCookie, stringifySetCookie } from 'cookie';
import { ActionError, type ActionResult, act, isAction } from './actions.js';
import { type DashboardCredentials, Login } from './auth.js';
import { Csrf, sameOrigin } from './csrf.js';
import { flowPage } from './flow-page.js';
import {
  errorPage,
  firstTab,
  jsonValue,
  type ListFilter,
  type ListState,
  type Notice,
  overview,
  type QueueView,
  q,
  queuePage,
  type RowFlow,
  rowPage,
  STATES,
  type View,
} from './pages.js';
import { type BrokerEvents, Sampler } from './sampler.js';

/** One queue the dashboard shows. */
export interface DashboardQueue {
  /** The table's description, as `inbox({...})` returns it. */
  readonly table: TableDescription;
  /** Where the queue keeps its dead letters. Default: none (no dead list, no requeue). */
  readonly deadLetter?: DeadLetterTarget | undefined;
  /**
   * A column of the table (and of the dead-letter table) where the application writes a row's last
   * error: shown beside each dead letter. Default: none; then the errors the `events` brokers
   * reported to this process are shown, where it saw them.
   */
  readonly errorColumn?: string | undefined;
}

/** Options of {@link dashboard}. */
export interface DashboardOptions {
  /** The queues, by the name the pages and URLs use. */
  readonly queues: Readonly<Record<string, DashboardQueue>>;
  /**
   * The path the dashboard is mounted at, such as `/admin/queues`: its links and forms start with
   * it, and a request outside it is answered 404. Default: `''` (the root).
   */
  readonly basePath?: string | undefined;
  /**
   * When true (the default) the pages only read: no requeue or delete button is shown and every
   * POST is refused with 403. Pass `false` to enable the actions.
   */
  readonly readOnly?: boolean | undefined;
  /**
   * Milliseconds between two readings of every queue's counts, kept in memory for the charts and
   * refreshed in open pages. Default 5000; 0 turns sampling (and the pages' refresh) off.
   */
  readonly sampleEvery?: number | undefined;
  /** How much history the charts keep and show, in milliseconds. Default 15 minutes. */
  readonly history?: number | undefined;
  /**
   * Brokers (anything with a broker's `on`) whose `settled` events are counted for the throughput
   * chart and whose handler errors are remembered for the dead letters. Default: none (no
   * throughput chart; a standalone dashboard sees no events).
   */
  readonly events?: BrokerEvents | readonly BrokerEvents[] | undefined;
  /**
   * The key that signs the CSRF tokens. Default: random per process, so a restart asks open pages
   * to reload before their next action. Give every instance behind one load balancer the same one.
   */
  readonly secret?: string | undefined;
  /**
   * Origins besides the request's own `Host` that may post actions (`https://ops.example.com`), for
   * a proxy that rewrites `Host`. Default: none.
   */
  readonly allowedOrigins?: readonly string[] | undefined;
  /** Rows a list page shows. Default 50, at most 500. */
  readonly pageSize?: number | undefined;
  /** The name in the pages' header and titles. Default `sqlinbox`. */
  readonly title?: string | undefined;
  /**
   * A login of the dashboard's own: every request, pages included, must carry the basic
   * authentication user and password or the bearer token, else it is answered 401. For a
   * dashboard with nothing in front of it (`sqlinbox dashboard` beyond this machine). Default:
   * none, the application's own authentication goes in front.
   */
  readonly credentials?: DashboardCredentials | undefined;
}

/** The request handler {@link dashboard} returns, with a fetch-style variant. */
export interface Dashboard {
  /** Answers one request: for `node:http`, Express, Fastify (`request.raw`, `reply.raw`). */
  (req: IncomingMessage, res: ServerResponse): void;
  /** The same for a fetch-style server: Hono, or anything that hands over a `Request`. */
  fetch(request: Request): Promise<Response>;
  /** Reads every queue's counts now and keeps the reading (as the timer does). */
  sample(): Promise<void>;
  /** Stops the sampling timer and the event listeners. The pool is the caller's to close. */
  close(): void;
}

/** A request, as the router reads it from either server style. */
interface Incoming {
  readonly method: string;
  /** The path and query, from the server's root. */
  readonly target: string;
  header(name: string): string | undefined;
  /** The urlencoded body; throws an {@link HttpError} 413 past the limit. */
  form(): Promise<URLSearchParams>;
  readonly secure: boolean;
}

interface Outgoing {
  status: number;
  headers: Record<string, string>;
  body: string;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The largest form body read, in bytes. */
const BODY_LIMIT = 64 * 1024;
/** The most ids one action takes. */
const MAX_IDS = 500;
const COOKIE = 'sqlinbox_csrf';
const SKIPS: readonly SkipReason[] = ['not-found', 'in-work', 'not-dead', 'dead', 'done'];
const VERBS: readonly Notice['verb'][] = [
  'requeued',
  'deleted',
  'rescheduled',
  'cancelled',
  'paused',
  'resumed',
];
const BASE = /^(\/[A-Za-z0-9._~!$&'()*+,;=:@%-]+)*$/;

interface Queue {
  readonly name: string;
  readonly table: AnyTable;
  readonly deadLetter: DeadLetterTarget | undefined;
  readonly errorColumn: string | undefined;
}

/**
 * A web dashboard over an {@link Admin} (or an adapter, which it wraps in one): an overview of the
 * queues with their counts and the age of the oldest ready row, a page per queue with charts of
 * the recent depth, lag and throughput and its rows by state, and one row by id. Actions
 * (requeue and delete dead letters, delete a row) are POST forms, refused unless `readOnly` is
 * `false` and unless both CSRF checks pass (the same origin, and a signed token double-submitted).
 * Every value from the database is escaped; every value from the request is validated and reaches
 * the database only as a bound parameter of the admin API. The host application's own
 * authentication goes in front.
 */
export function dashboard(source: Admin | Adapter, options: DashboardOptions): Dashboard {
  const admin = isAdmin(source) ? source : new Admin(source);
  const base = options.basePath ?? '';
  if (!BASE.test(base)) {
    throw new TypeError(
      `dashboard basePath must be empty or a path such as /admin/queues, without a trailing slash (got ${JSON.stringify(base)})`,
    );
  }
  const queues = new Map<string, Queue>();
  for (const [name, qc] of Object.entries(options.queues)) {
    if (name === '' || qc === undefined || typeof qc.table?.table !== 'string') {
      throw new TypeError(`dashboard queue ${JSON.stringify(name)} needs { table: inbox({...}) }`);
    }
    queues.set(name, {
      name,
      table: qc.table as AnyTable,
      deadLetter: qc.deadLetter,
      errorColumn: qc.errorColumn,
    });
  }
  const readOnly = options.readOnly ?? true;
  const every = options.sampleEvery ?? 5000;
  const windowMs = options.history ?? 15 * 60_000;
  const pageSize = options.pageSize ?? 50;
  if (!(every >= 0) || !(windowMs > 0) || !Number.isInteger(pageSize) || pageSize < 1 || pageSize > 500) {
    throw new TypeError('dashboard sampleEvery must be >= 0, history > 0, pageSize a whole number 1..500');
  }
  const login = options.credentials === undefined ? undefined : new Login(options.credentials);
  const events =
    options.events === undefined ? [] : 'on' in options.events ? [options.events] : options.events;
  const sampler = new Sampler(
    admin,
    [...queues.values()],
    every,
    windowMs,
    events as readonly BrokerEvents[],
  );
  const csrf = new Csrf(options.secret);
  const allowed = new Set((options.allowedOrigins ?? []).map((o) => new URL(o).origin));
  const title = options.title ?? 'sqlinbox';
  sampler.start();

  const viewOf = (token: string, live: boolean): View => ({
    base,
    title,
    nonce: randomBytes(16).toString('base64'),
    csrf: token,
    readOnly,
    refresh: live ? 0 : sampler.interval,
  });

  async function queueView(qu: Queue): Promise<QueueView> {
    let stats: QueueStats | null = null;
    let error: string | undefined;
    try {
      stats = await admin.stats(qu.table, { deadLetter: qu.deadLetter });
    } catch (err) {
      error = messageOf(err);
    }
    return {
      name: qu.name,
      table: qu.table.table,
      hasDead: qu.deadLetter !== undefined,
      hasDone: qu.table.processedAt !== undefined,
      stats,
      ...(error === undefined ? {} : { error }),
      samples: sampler.samples(qu.name),
      control: qu.table.control !== undefined,
      hasGroups: qu.table.group !== undefined,
      hasKeys: qu.table.uniqueKey !== undefined,
      hasFlows: qu.table.flows !== undefined,
    };
  }

  /** A row's place in flows for its page: undefined where the table keeps none, the error where unread. */
  async function rowFlow(qu: Queue, id: unknown): Promise<RowFlow | undefined> {
    if (qu.table.flows === undefined) return undefined;
    try {
      const tree = await admin.tree(qu.table, id, { deadLetter: qu.deadLetter });
      const parents = await admin.flowParents(qu.table, id, { deadLetter: qu.deadLetter });
      return { children: tree.children.length, pending: tree.pending, parents };
    } catch (err) {
      return { error: `the flow tables could not be read: ${messageOf(err)}` };
    }
  }

  function errorOf(qu: Queue, row: AdminRow): { text: string; source: string } | undefined {
    // The failure record first: written by the settlement, kept by the dead letter.
    if (row.lastError !== null || row.errorClass !== null) {
      const text = row.errorClass === null ? row.lastError! : `${row.errorClass}: ${row.lastError ?? ''}`;
      return { text, source: 'from the failure record' };
    }
    if (qu.errorColumn !== undefined) {
      const col = qu.errorColumn;
      const key =
        col in row.row ? col : Object.keys(row.row).find((k) => k.toLowerCase() === col.toLowerCase());
      const v = key === undefined ? undefined : row.row[key];
      if (v !== null && v !== undefined && v !== '')
        return { text: String(v), source: `from the column ${col}` };
    }
    const seen = sampler.lastError(qu.table.table, row.id);
    return seen === undefined ? undefined : { text: seen, source: 'reported to this process by a broker' };
  }

  async function handle(inc: Incoming): Promise<Outgoing> {
    const headers: Record<string, string> = {
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      'referrer-policy': 'same-origin',
    };
    if (login !== undefined && !login.allows(inc.header('authorization'))) {
      return {
        status: 401,
        headers: {
          ...headers,
          'www-authenticate': login.challenge,
          'content-type': 'text/plain; charset=utf-8',
        },
        body: 'this dashboard needs its login: the user and password, or the bearer token',
      };
    }
    const cookieToken = parseCookie(inc.header('cookie') ?? '')[COOKIE];
    let token = cookieToken;
    if (!csrf.valid(token)) {
      token = csrf.issue();
      headers['set-cookie'] = stringifySetCookie({
        name: COOKIE,
        value: token,
        path: base === '' ? '/' : base,
        httpOnly: true,
        sameSite: 'strict',
        secure: inc.secure,
      });
    }
    const live = inc.header('x-sqlinbox-live') === '1';
    const view = viewOf(token, live);
    headers['content-security-policy'] =
      `default-src 'none'; script-src 'nonce-${view.nonce}'; style-src 'nonce-${view.nonce}'; img-src 'self' data:; ` +
      `connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`;
    const htmlOut = (status: number, body: string): Outgoing => ({
      status,
      headers: { ...headers, 'content-type': 'text/html; charset=utf-8' },
      body,
    });
    const redirect = (location: string): Outgoing => ({
      status: 303,
      headers: { ...headers, location, 'content-type': 'text/plain; charset=utf-8' },
      body: `See ${location}`,
    });
    try {
      const url = targetUrl(inc.target);
      let path = url.pathname;
      if (base !== '') {
        if (path !== base && !path.startsWith(`${base}/`)) throw new HttpError(404, 'not a dashboard page');
        path = path.slice(base.length);
      }
      if (path === '') return redirect(`${base}/`);
      if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
      let parts: string[];
      try {
        parts = path.split('/').slice(1).map(decodeURIComponent);
      } catch {
        throw new HttpError(400, 'the path is not valid percent-encoding');
      }
      const method = inc.method.toUpperCase();
      const get = method === 'GET' || method === 'HEAD';

      if (parts.length === 1 && parts[0] === '') {
        if (!get) throw new HttpError(405, 'GET only');
        const views = [];
        for (const qu of queues.values()) views.push(await queueView(qu));
        return htmlOut(200, overview(view, views, sampler.counting, windowMs));
      }
      if (parts[0] === 'api' && parts[1] === 'stats' && parts.length === 2) {
        if (!get) throw new HttpError(405, 'GET only');
        const out: Record<string, unknown> = {};
        for (const qu of queues.values()) {
          const qv = await queueView(qu);
          out[qu.name] = { table: qv.table, stats: qv.stats, error: qv.error ?? null, samples: qv.samples };
        }
        return {
          status: 200,
          headers: { ...headers, 'content-type': 'application/json; charset=utf-8' },
          body: JSON.stringify(
            { sampleEvery: sampler.interval, counting: sampler.counting, queues: out },
            jsonValue,
          ),
        };
      }
      if (parts[0] !== 'queues' || parts[1] === undefined) throw new HttpError(404, 'no such page');
      const qu = queues.get(parts[1]);
      if (qu === undefined) throw new HttpError(404, `no queue named ${parts[1]}`);

      if (parts.length === 2) {
        if (!get) throw new HttpError(405, 'GET only');
        const stateParam = url.searchParams.get('state');
        const qv = await queueView(qu);
        const state = (stateParam ?? firstTab(qv)) as ListState;
        if (!STATES.includes(state)) {
          throw new HttpError(400, `state must be one of ${STATES.join(', ')}`);
        }
        if (state === 'dead' && qu.deadLetter === undefined) {
          throw new HttpError(400, `the queue ${qu.name} has no dead letter configured`);
        }
        const afterText = url.searchParams.get('after') ?? undefined;
        const after = afterText === undefined ? undefined : idOf(afterText);
        const filter = filterOf(qu, url.searchParams);
        const list = live
          ? null
          : await admin.list(qu.table, {
              deadLetter: qu.deadLetter,
              state,
              limit: pageSize,
              ...(after === undefined ? {} : { after }),
              ...filter,
            });
        return htmlOut(
          200,
          queuePage(view, qv, {
            counting: sampler.counting,
            windowMs,
            state,
            list,
            after: afterText,
            filter,
            notice: noticeOf(url.searchParams),
            errorOf: (r) => errorOf(qu, r)?.text,
            showErrors: qu.errorColumn !== undefined || sampler.counting || qu.table.lastError !== undefined,
            record: {
              errors: qu.table.lastError !== undefined || qu.table.errorClass !== undefined,
              failedAt: qu.table.failedAt !== undefined,
              createdAt: qu.table.createdAt !== undefined,
            },
          }),
        );
      }
      if (parts[2] === 'rows' && parts.length === 3) {
        if (!get) throw new HttpError(405, 'GET only');
        const id = url.searchParams.get('id')?.trim() ?? '';
        if (id === '' || id.length > 200) throw new HttpError(400, 'give a row id (at most 200 characters)');
        return redirect(q(view, qu.name, `/rows/${encodeURIComponent(id)}`));
      }
      if (parts[2] === 'rows' && parts.length === 4) {
        if (!get) throw new HttpError(405, 'GET only');
        const idText = parts[3]!;
        if (idText === '' || idText.length > 200)
          throw new HttpError(400, 'a row id has 1 to 200 characters');
        const row = await admin.get(qu.table, idOf(idText), { deadLetter: qu.deadLetter });
        if (row === null) throw new HttpError(404, `table ${qu.table.table}: no row with id ${idText}`);
        const err = errorOf(qu, row);
        return htmlOut(
          200,
          rowPage(view, await queueView(qu), row, {
            payload: payloadText(qu.table, row),
            error: err?.text,
            errorSource: err?.source ?? '',
            notice: noticeOf(url.searchParams),
            flow: await rowFlow(qu, row.id),
          }),
        );
      }
      if (parts[2] === 'flows' && (parts.length === 3 || parts.length === 4)) {
        if (!get) throw new HttpError(405, 'GET only');
        if (qu.table.flows === undefined) {
          throw new HttpError(404, `the queue ${qu.name} keeps no flows (its table declares no flow tables)`);
        }
        if (parts.length === 3) {
          const id = url.searchParams.get('id')?.trim() ?? '';
          if (id === '' || id.length > 200)
            throw new HttpError(400, 'give a row id (at most 200 characters)');
          return redirect(q(view, qu.name, `/flows/${encodeURIComponent(id)}`));
        }
        const idText = parts[3]!;
        if (idText === '' || idText.length > 200)
          throw new HttpError(400, 'a row id has 1 to 200 characters');
        const id = idOf(idText);
        const tree = await admin.tree(qu.table, id, { deadLetter: qu.deadLetter });
        const parents = await admin.flowParents(qu.table, id, { deadLetter: qu.deadLetter });
        if (tree.children.length === 0 && parents.length === 0) {
          throw new HttpError(
            404,
            tree.state === 'missing'
              ? `table ${qu.table.table}: no row with id ${idText}, and no flow names it`
              : `table ${qu.table.table}: row ${idText} is in no flow (it has no children and no parents)`,
          );
        }
        return htmlOut(200, flowPage(view, qu.name, qu.table.table, tree, parents));
      }
      if (isAction(parts[2]) && parts.length === 3) {
        if (method !== 'POST') throw new HttpError(405, 'POST only');
        if (readOnly) throw new HttpError(403, 'this dashboard is read-only: actions are disabled');
        if (!sameOrigin(inc.header, allowed)) {
          throw new HttpError(403, 'the request does not come from a page of this dashboard (Origin check)');
        }
        const type = (inc.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
        if (type !== 'application/x-www-form-urlencoded') {
          throw new HttpError(415, 'actions take an HTML form (application/x-www-form-urlencoded)');
        }
        const form = await inc.form();
        if (!csrf.check(cookieToken, form.get('csrf') ?? undefined)) {
          throw new HttpError(403, 'the form has no valid CSRF token: reload the page and try again');
        }
        const state = form.get('state') ?? 'dead';
        const backState = (STATES as readonly string[]).includes(state) ? state : 'dead';
        let done: ActionResult;
        try {
          done = await act(admin, qu, parts[2], form, () => selectionOf(form));
        } catch (err) {
          if (err instanceof ActionError) throw new HttpError(err.status, err.message);
          throw err;
        }
        const { report } = done;
        const result = new URLSearchParams({ done: done.verb });
        const group = (form.get('group') ?? '').trim();
        if ((done.verb === 'paused' || done.verb === 'resumed') && group !== '') result.set('group', group);
        if (done.signalled !== undefined) result.set('s', String(done.signalled));
        if (report !== undefined) {
          result.set('n', String(report.changed.length));
          result.set('left', String(report.skipped.length));
          for (const w of new Set(report.skipped.map((s) => s.reason))) result.append('why', w);
        }
        if (done.row !== undefined) {
          return redirect(q(view, qu.name, `/rows/${encodeURIComponent(String(done.row))}?${result}`));
        }
        return redirect(q(view, qu.name, `?state=${backState}&${result}`));
      }
      throw new HttpError(404, 'no such page');
    } catch (err) {
      if (err instanceof HttpError) return htmlOut(err.status, errorPage(view, err.status, err.message));
      return htmlOut(500, errorPage(view, 500, messageOf(err)));
    }
  }

  const node = (req: IncomingMessage, res: ServerResponse): void => {
    const target = (req as { originalUrl?: string }).originalUrl ?? req.url ?? '/';
    const header = (name: string): string | undefined => {
      const v = req.headers[name];
      return Array.isArray(v) ? v[0] : v;
    };
    handle({
      method: req.method ?? 'GET',
      target,
      header,
      form: () => nodeForm(req),
      secure:
        (req.socket as { encrypted?: boolean }).encrypted === true || header('x-forwarded-proto') === 'https',
    }).then(
      (out) => {
        res.writeHead(out.status, out.headers);
        res.end(req.method === 'HEAD' ? undefined : out.body);
      },
      () => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
        res.end('internal error');
      },
    );
  };

  const fetchHandler = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const out = await handle({
      method: request.method,
      target: `${url.pathname}${url.search}`,
      header: (name) => request.headers.get(name) ?? (name === 'host' ? url.host : undefined),
      form: () => fetchForm(request),
      secure: url.protocol === 'https:' || request.headers.get('x-forwarded-proto') === 'https',
    });
    return new Response(request.method === 'HEAD' ? null : out.body, {
      status: out.status,
      headers: out.headers,
    });
  };

  return Object.assign(node, {
    fetch: fetchHandler,
    sample: () => sampler.sample(),
    close: () => sampler.stop(),
  });
}

function isAdmin(source: Admin | Adapter): source is Admin {
  return (
    typeof (source as Admin).stats === 'function' &&
    typeof (source as Admin).list === 'function' &&
    typeof (source as Admin).requeue === 'function'
  );
}

function targetUrl(target: string): URL {
  try {
    return target.startsWith('/') ? new URL(`http://dashboard${target}`) : new URL(target);
  } catch {
    throw new HttpError(400, 'the request target is not a URL path');
  }
}

/** An id from a URL or a form: a whole number within 2^53 as a number, else the text. */
function idOf(text: string): string | number {
  const n = Number(text);
  return /^-?\d+$/.test(text) && Number.isSafeInteger(n) ? n : text;
}

function selectionOf(form: URLSearchParams): Selection {
  if (form.get('all') === '1') return { all: true };
  const ids = form.getAll('id').map((s) => s.trim());
  if (ids.length === 0 || ids.some((s) => s === '' || s.length > 200)) {
    throw new HttpError(400, 'say which rows: one or more ids (1 to 200 characters each), or all');
  }
  if (ids.length > MAX_IDS) throw new HttpError(400, `at most ${MAX_IDS} ids in one action`);
  return { ids: ids.map(idOf) };
}

/**
 * The list's filter from the URL: `in_group` (a FIFO group) and `key` (a unique key), each where
 * the table has the column, at most 255 characters.
 */
function filterOf(qu: Queue, params: URLSearchParams): ListFilter {
  const pick = (param: string, what: string, has: boolean): string | undefined => {
    const v = params.get(param)?.trim();
    if (v === undefined || v === '') return undefined;
    if (!has) throw new HttpError(400, `the table ${qu.table.table} has no ${what} column to filter by`);
    if (v.length > 255) throw new HttpError(400, `a ${what} has at most 255 characters`);
    return v;
  };
  const group = pick('in_group', 'group', qu.table.group !== undefined);
  const key = pick('key', 'unique key', qu.table.uniqueKey !== undefined);
  return { ...(group === undefined ? {} : { group }), ...(key === undefined ? {} : { key }) };
}

/** The redirect's report of an action, read back: counts and known reasons only. */
function noticeOf(params: URLSearchParams): Notice | undefined {
  const done = params.get('done');
  if (!(VERBS as readonly (string | null)[]).includes(done)) return undefined;
  const count = (v: string | null) => (v !== null && /^\d{1,6}$/.test(v) ? Number(v) : 0);
  return {
    verb: done as Notice['verb'],
    changed: count(params.get('n')),
    left: count(params.get('left')),
    why: params.getAll('why').filter((w) => (SKIPS as readonly string[]).includes(w)),
    group: params.get('group')?.slice(0, 255) ?? undefined,
    signalled: count(params.get('s')),
  };
}

/** The whole payload of a row as text: JSON pretty-printed, bytes read as UTF-8. At most 64 KiB. */
function payloadText(table: AnyTable, row: AdminRow): string {
  if (table.payload === undefined) return '';
  const v = row.row[table.payload.column];
  let text: string;
  if (v === null || v === undefined) text = '';
  else if (v instanceof Uint8Array) text = new TextDecoder().decode(v);
  else if (typeof v === 'string') {
    text = v;
    if (table.payload.type === 'json') {
      try {
        text = JSON.stringify(JSON.parse(v), null, 2);
      } catch {
        // not JSON after all: shown as stored
      }
    }
  } else text = JSON.stringify(v, jsonValue, 2) ?? '';
  return text.length > 65_536 ? `${text.slice(0, 65_536)}…` : text;
}

async function nodeForm(req: IncomingMessage): Promise<URLSearchParams> {
  // A body parser in front (Express's urlencoded()) has read the stream already: use its result.
  const parsed = (req as { body?: unknown }).body;
  if (typeof parsed === 'string') return new URLSearchParams(parsed);
  if (parsed instanceof Uint8Array) return new URLSearchParams(Buffer.from(parsed).toString('utf8'));
  if (typeof parsed === 'object' && parsed !== null) {
    const out = new URLSearchParams();
    for (const [k, v] of Object.entries(parsed)) {
      for (const item of Array.isArray(v) ? v : [v]) if (typeof item === 'string') out.append(k, item);
    }
    return out;
  }
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > BODY_LIMIT) throw new HttpError(413, `a form body is at most ${BODY_LIMIT} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > BODY_LIMIT) throw new HttpError(413, `a form body is at most ${BODY_LIMIT} bytes`);
    chunks.push(chunk as Buffer);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

async function fetchForm(request: Request): Promise<URLSearchParams> {
  const declared = Number(request.headers.get('content-length') ?? 0);
  if (declared > BODY_LIMIT) throw new HttpError(413, `a form body is at most ${BODY_LIMIT} bytes`);
  if (request.body === null) return new URLSearchParams();
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > BODY_LIMIT) {
      await reader.cancel().catch(() => undefined);
      throw new HttpError(413, `a form body is at most ${BODY_LIMIT} bytes`);
    }
    chunks.push(value);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
