import { EXPOSITION_CONTENT_TYPE, InvalidArgumentError, isConnectionLike, type Connection, type HookMetrics } from '@echo/protocol/extend';
import { LIST_STATES, type ListState } from '@echo/queue';
import { Hono, type Context } from 'hono';
import { routePath } from 'hono/route';
import { Admin } from '../inspect/admin.js';
import { cacheTableViews, type CacheStatsSource } from '../inspect/caches.js';
import { namespaceViews, type NamespaceStatsSource } from '../inspect/namespaces.js';
import { prometheusMetrics } from '../inspect/metrics.js';
import { errorReply } from './errors.js';
import { checkBulkBody, checkCacheDeleteBody, checkDashboardOptions, checkDashboardValues, checkRedriveBody } from '../option-checks.js';
import { renderPage } from './page.js';

/** Whether a request reads or changes something. */
export type Access = 'read' | 'write';

/**
 * Decides whether a request may go on. Answer `true` to allow, `false` for a plain 403, or a
 * `Response` to send instead (a 401 with `WWW-Authenticate`, a redirect to a login page).
 */
export type AuthorizeHook = (request: Request, access: Access) => boolean | Response | Promise<boolean | Response>;

/** How a dashboard reaches the server and what it allows. */
export interface DashboardOptions {
  /** The connection to read and write through (left open), or an {@link Admin} over one. */
  readonly connection: Connection | Admin;
  /**
   * Refuse every write (retry, remove, promote, pause, resume, bulk actions, scheduler removal,
   * redrive) with 403 and hide their buttons. Default false.
   */
  readonly readOnly?: boolean;
  /** Called before every request; see {@link AuthorizeHook}. Default: allow all. */
  readonly authorize?: AuthorizeHook;
  /** This process's cache directory (an `@echo/cache` `Cache`), for hit ratios. */
  readonly cache?: CacheStatsSource;
  /** This process's keyed namespaces (`@echo/cache` `Namespace` handles), for their hit ratios. */
  readonly namespaces?: readonly NamespaceStatsSource[];
  /** How often the page polls, ms. Default 1000. */
  readonly pollMs?: number;
  /** The page title. Default "Echo". */
  readonly title?: string;
  /**
   * How long a discovery (a SCAN of the whole keyspace for queues, streams and cache tables) is
   * reused, ms. Counts, jobs and lag are read fresh on every poll; only the list of names waits.
   * Default 5000.
   */
  readonly discoverMs?: number;
  /**
   * This process's hook counters, added to `/metrics` (the server's figures are there either way).
   * Pass `false` to serve no `/metrics` route.
   */
  readonly metrics?: HookMetrics | false;
}

/** `read()`, reused for `ttlMs`; concurrent callers share one read in flight. */
function reused<V>(ttlMs: number, read: () => Promise<V>): () => Promise<V> {
  let held: { value: Promise<V>; at: number } | undefined;
  return () => {
    const now = performance.now();
    if (held === undefined || now - held.at > ttlMs) {
      const value = read();
      held = { value, at: now };
      // A failed discovery is not kept: the next poll tries again.
      value.catch(() => (held = undefined));
    }
    return held.value;
  };
}

/** Writes need this header: a cross-site form cannot send it, so a forged POST is refused. */
export const WRITE_HEADER = 'x-echo-dashboard';

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function listState(value: string | undefined): ListState {
  const state = value ?? 'pending';
  if (!(LIST_STATES as readonly string[]).includes(state)) throw new InvalidArgumentError('state', `must be one of ${LIST_STATES.join(', ')}`);
  return state as ListState;
}

/** A write's JSON body: an object, refused with a typed error otherwise. */
async function jsonBody(c: Context): Promise<Record<string, unknown>> {
  const body: unknown = await c.req.json().catch(() => undefined);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new InvalidArgumentError('body', 'must be a JSON object');
  return body as Record<string, unknown>;
}

function whole(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new InvalidArgumentError(name, 'must be an integer');
  return n;
}

/**
 * The dashboard as a Hono app: an HTML page at `/` that polls a JSON API under `/api`. Mount it in
 * a Hono app with `app.route('/queues', createDashboard({ connection }))`, hand `dashboard.fetch`
 * to any server that speaks web `Request`/`Response`, or serve it alone with `serveDashboard`.
 *
 * @example
 * const app = new Hono();
 * app.route('/admin/queues', createDashboard({ connection, readOnly: true, authorize: (req) => isStaff(req) }));
 */
export function createDashboard(options: DashboardOptions): Hono {
  checkDashboardOptions(options);
  // Checked at run time: a missing or plain-object connection would otherwise fail at the first request.
  const raw: unknown = options;
  if (typeof raw !== 'object' || raw === null) throw new InvalidArgumentError('createDashboard options', 'must be an options object with connection');
  if (!(options.connection instanceof Admin) && !isConnectionLike(options.connection)) {
    throw new InvalidArgumentError('createDashboard options.connection', 'must be an open Connection or an Admin; to connect from a URL or { host, port }, use serveDashboard({ connect })');
  }
  checkDashboardValues('createDashboard options', options);
  const admin = options.connection instanceof Admin ? options.connection : Admin.over(options.connection);
  const readOnly = options.readOnly === true;
  const app = new Hono();
  const discoverMs = options.discoverMs ?? 5000;
  const queueNames = reused(discoverMs, () => admin.queues());
  const streamRefs = reused(discoverMs, () => admin.streamRefs());
  const cacheTables = reused(discoverMs, () => admin.cacheTables());

  app.onError((error, c) => {
    const reply = errorReply(error);
    if (reply.status === 500) console.error('echo dashboard:', error);
    return c.json(reply.body, reply.status);
  });

  app.use(async (c, next) => {
    const access: Access = WRITE_METHODS.has(c.req.method) ? 'write' : 'read';
    if (access === 'write') {
      if (readOnly) return c.json({ error: 'ReadOnly', message: 'this dashboard is read-only' }, 403);
      if (c.req.header(WRITE_HEADER) !== '1') return c.json({ error: 'Forbidden', message: `writes need the ${WRITE_HEADER} header` }, 403);
    }
    if (options.authorize !== undefined) {
      const verdict = await options.authorize(c.req.raw, access);
      if (verdict instanceof Response) return verdict;
      if (!verdict) return c.json({ error: 'Forbidden', message: 'not allowed' }, 403);
    }
    await next();
    return undefined;
  });

  // The page calls the API by relative URL, so it is served only under a trailing slash. The raw
  // URL decides: a host app that is not strict hands `/base/` to the `/` route with the slash
  // trimmed from `c.req.path`, and a strict one hands it to no route but the catch-all.
  const page = (c: Context): Response | Promise<Response> => {
    const path = new URL(c.req.url).pathname;
    if (!path.endsWith('/')) return c.redirect(`${path}/`);
    return c.html(renderPage({ title: options.title ?? 'Echo', readOnly, pollMs: options.pollMs ?? 1000 }));
  };
  app.get('/', page);
  if (options.metrics !== false) {
    const hooks = options.metrics;
    app.get('/metrics', async (c) => {
      const names = { queues: await queueNames(), streams: await streamRefs(), cacheTables: await cacheTables() };
      const text = await prometheusMetrics(admin, { ...names, ...(hooks ? { hooks } : {}), ...(options.cache ? { cache: options.cache } : {}) });
      return c.body(text, 200, { 'content-type': EXPOSITION_CONTENT_TYPE });
    });
  }

  const api = new Hono();
  api.get('/queues', async (c) => c.json({ queues: await admin.summaries(await queueNames()), workers: (await admin.workers()) ?? null, at: Date.now() }));
  api.get('/queues/:queue', async (c) => c.json(await admin.summary(c.req.param('queue'))));
  api.get('/queues/:queue/jobs', async (c) => {
    const state = listState(c.req.query('state'));
    const page = { offset: whole('offset', c.req.query('offset'), 0), limit: whole('limit', c.req.query('limit'), 25) };
    return c.json(await admin.jobs(c.req.param('queue'), state, page));
  });
  api.get('/queues/:queue/jobs/:id', async (c) => c.json(await admin.job(c.req.param('queue'), c.req.param('id'))));
  api.post('/queues/:queue/jobs/:id/retry', async (c) => {
    await admin.retry(c.req.param('queue'), c.req.param('id'));
    return c.json({ ok: true });
  });
  api.post('/queues/:queue/jobs/:id/remove', async (c) => {
    await admin.remove(c.req.param('queue'), c.req.param('id'));
    return c.json({ ok: true });
  });
  api.get('/queues/:queue/search', async (c) => c.json(await admin.search(c.req.param('queue'), c.req.query('q') ?? '')));
  api.post('/queues/:queue/bulk', async (c) => {
    const body = await jsonBody(c);
    checkBulkBody(body);
    return c.json(await admin.bulk(c.req.param('queue'), body.action, body.ids));
  });
  api.get('/queues/:queue/schedulers', async (c) => c.json({ schedulers: await admin.schedulers(c.req.param('queue')) }));
  api.post('/queues/:queue/schedulers/:id/remove', async (c) => c.json({ removed: await admin.removeScheduler(c.req.param('queue'), c.req.param('id')) }));
  api.get('/queues/:queue/workers', async (c) => c.json({ workers: await admin.queueWorkers(c.req.param('queue')) }));
  api.get('/queues/:queue/minutes', async (c) => c.json({ minutes: await admin.minutes(c.req.param('queue'), whole('last', c.req.query('last'), 60)) }));
  api.post('/queues/:queue/retry-dead', async (c) => c.json(await admin.retryAllDead(c.req.param('queue'))));
  api.post('/queues/:queue/pause', async (c) => {
    await admin.pause(c.req.param('queue'));
    return c.json({ ok: true });
  });
  api.post('/queues/:queue/resume', async (c) => {
    await admin.resume(c.req.param('queue'));
    return c.json({ ok: true });
  });
  api.get('/streams', async (c) => c.json({ streams: await admin.streams(await streamRefs()) }));
  api.get('/streams/:queue/:stream/dead-letters', async (c) => {
    const after = c.req.query('after');
    const range = { count: whole('count', c.req.query('count'), 100), ...(after === undefined || after === '' ? {} : { after }) };
    return c.json({ deadLetters: await admin.deadLetters(c.req.param('queue'), c.req.param('stream'), range) });
  });
  api.post('/streams/:queue/:stream/redrive', async (c) => {
    const body = await jsonBody(c);
    checkRedriveBody(body);
    if (body.all === true && body.ids === undefined) return c.json(await admin.redrive(c.req.param('queue'), c.req.param('stream'), 'all'));
    if (body.all !== undefined || !Array.isArray(body.ids) || !body.ids.every((id) => typeof id === 'string')) {
      throw new InvalidArgumentError('body', 'must be { ids: [entry ids] } or { all: true }');
    }
    return c.json(await admin.redrive(c.req.param('queue'), c.req.param('stream'), body.ids));
  });
  const namespaceRefs = reused(discoverMs, () => admin.namespaces());
  api.get('/namespaces', async (c) => c.json({ namespaces: namespaceViews(await namespaceRefs(), options.namespaces), local: options.namespaces !== undefined }));
  api.get('/namespaces/:name', async (c) => {
    const page = { offset: whole('offset', c.req.query('offset'), 0), limit: whole('limit', c.req.query('limit'), 50) };
    if (page.offset < 0 || page.limit < 1 || page.limit > 1000) throw new InvalidArgumentError('limit', 'offset must be >= 0 and limit in 1..1000');
    return c.json(await admin.namespaceEntries(c.req.param('name'), page));
  });
  api.post('/namespaces/:name/delete', async (c) => {
    const body = await jsonBody(c);
    checkCacheDeleteBody(body);
    const { key, tag } = body;
    if (typeof key === 'string' && tag === undefined) return c.json({ deleted: (await admin.deleteCacheKey(c.req.param('name'), key)) ? 1 : 0 });
    if (typeof tag === 'string' && key === undefined) return c.json({ deleted: await admin.deleteCacheTag(c.req.param('name'), tag) });
    throw new InvalidArgumentError('body', 'must be { key } or { tag }');
  });
  api.get('/caches', async (c) => c.json({ tables: cacheTableViews(await cacheTables(), options.cache), local: options.cache !== undefined }));
  app.route('/api', api);
  app.get('*', (c) => (new URL(c.req.url).pathname === `${routePath(c).replace(/\/\*$/, '')}/` ? page(c) : c.notFound()));
  return app;
}
