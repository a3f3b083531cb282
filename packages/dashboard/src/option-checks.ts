import { InvalidArgumentError, strictOptions } from '@echo/protocol/extend';

/*
 * The strict checks of the dashboard's public entry points, built once. The hints name what
 * Bull Board, Taskforce and Hono users tend to write.
 */

const DASHBOARD = ['connection', 'readOnly', 'authorize', 'cache', 'namespaces', 'pollMs', 'title', 'discoverMs', 'metrics'] as const;

const SHARED_HINTS: Readonly<Record<string, string>> = {
  readonly: 'readOnly here (camel case)',
  readOnlyMode: 'readOnly here',
  auth: 'authorize here: a hook called before every request',
  basicAuth: 'authorize here: a hook that reads the request and answers whether it may read or write',
  queues: 'queues are discovered from the server (a SCAN every discoverMs); every queue is shown',
  pollInterval: 'how often the page polls is pollMs here (milliseconds)',
  refreshInterval: 'how often the page polls is pollMs here (milliseconds)',
  basePath: 'mount the app under a path from your own Hono app: app.route(path, createDashboard({ connection }))',
  uiBasePath: 'mount the app under a path from your own Hono app: app.route(path, createDashboard({ connection }))',
  prefix: "Echo's keys are fixed by the protocol (emq:{queue}:...): there is no key prefix",
};

/** `createDashboard(options)`. */
export const checkDashboardOptions = strictOptions('createDashboard options', {
  known: DASHBOARD,
  hints: {
    ...SHARED_HINTS,
    connect: 'createDashboard takes an open connection (connection: a Connection or an Admin); serveDashboard takes connect',
    redis: 'an open Echo Connection (or an Admin) is connection here',
  },
  bounds: { pollMs: 'timer', discoverMs: 'timer' },
});

/** `serveDashboard(options)`. */
export const checkServeOptions = strictOptions('serveDashboard options', {
  known: [...DASHBOARD.filter((k) => k !== 'connection'), 'connect', 'port', 'host'],
  hints: {
    ...SHARED_HINTS,
    connection: 'serveDashboard opens its own connection from connect; to share one, mount createDashboard({ connection })',
    url: 'the server URL is connect here',
    redis: 'the server URL or connection options is connect here',
    hostname: 'the address to listen on is host here',
  },
  bounds: { pollMs: 'timer', discoverMs: 'timer' },
});

type Values = Readonly<Record<string, unknown>>;

function typed(where: string, options: Values, key: string, what: string, ok: (value: unknown) => boolean): void {
  const value = options[key];
  if (value !== undefined && !ok(value)) throw new InvalidArgumentError(`${where}.${key}`, `must be ${what}`);
}

const wholeFrom = (min: number) => (value: unknown): boolean => typeof value === 'number' && Number.isSafeInteger(value) && value >= min;

/**
 * The value types of the options `createDashboard` and `serveDashboard` share, checked before
 * anything is built: JavaScript callers and spread configs are not held to the types, and a wrong
 * type here would only fail at the first request (or never, for the page's poll period).
 * @throws InvalidArgumentError naming the option.
 */
export function checkDashboardValues(where: string, options: object): void {
  const values = options as Values;
  typed(where, values, 'readOnly', 'a boolean', (v) => typeof v === 'boolean');
  typed(where, values, 'authorize', 'a function (request, access) => boolean | Response', (v) => typeof v === 'function');
  typed(where, values, 'title', 'a string', (v) => typeof v === 'string');
  typed(where, values, 'pollMs', 'an integer >= 1 (milliseconds)', wholeFrom(1));
  typed(where, values, 'discoverMs', 'an integer >= 0 (milliseconds)', wholeFrom(0));
  typed(where, values, 'namespaces', 'a list of cache Namespace handles', (v) => Array.isArray(v));
  typed(where, values, 'cache', 'a cache directory (an @echo/cache Cache)', (v) => typeof v === 'object' && v !== null);
  typed(where, values, 'metrics', 'false or hook counters', (v) => v === false || (typeof v === 'object' && v !== null));
}

/** `prometheusMetrics(admin, options)` / `serverMetricFamilies(admin, options)`. */
export const checkMetricsOptions = strictOptions('metrics options', {
  known: ['hooks', 'cache', 'queues', 'streams', 'cacheTables'],
  hints: {
    queue: 'the queues to report is queues here (a list)',
    prefix: 'metric names are fixed (emq_...); relabel in the Prometheus scrape config',
    metrics: 'this process’s hook counters are hooks here',
  },
});

/** `POST api/queues/:queue/bulk` body: `{ action, ids }`. */
export const checkBulkBody = strictOptions('bulk request', {
  known: ['action', 'ids'],
  hints: { jobs: 'the selected jobs are ids here (a list of job ids)', jobIds: 'the selected jobs are ids here' },
});

/** `POST api/streams/:queue/:stream/redrive` body: `{ ids }` or `{ all: true }`. */
export const checkRedriveBody = strictOptions('redrive request', {
  known: ['ids', 'all'],
  hints: { records: 'redrive takes entry ids: { ids } (or { all: true })', id: 'redrive takes a list: { ids: [id] }' },
});

/** `POST api/namespaces/:name/delete` body: `{ key }` or `{ tag }`. */
export const checkCacheDeleteBody = strictOptions('cache delete request', {
  known: ['key', 'tag'],
  hints: { keys: 'one entry per request: { key }', tags: 'one tag per request: { tag }' },
});
