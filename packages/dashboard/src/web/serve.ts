import { serve } from '@hono/node-server';
import { Admin } from '../inspect/admin.js';
import { InvalidArgumentError, type ConnectOptions } from '@echo/protocol';
import { createDashboard, type DashboardOptions } from './app.js';
import { checkDashboardValues, checkServeOptions } from '../option-checks.js';

/** Where a standalone dashboard listens, and where it connects. */
export interface ServeOptions extends Omit<DashboardOptions, 'connection'> {
  /** A URL or full options; the dashboard opens its own connection and closes it on `close`. */
  readonly connect: ConnectOptions | string;
  /** Default 3000; 0 picks a free port. */
  readonly port?: number;
  /** Default 127.0.0.1: the dashboard can change queues, so it is not exposed unless asked. */
  readonly host?: string;
}

/** A running standalone dashboard. */
export interface RunningDashboard {
  /** `http://host:port/`. */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/**
 * Connects and serves the dashboard alone on Node's HTTP server (`@hono/node-server`).
 * @throws ConnectError, AuthError, VersionFenceError when the server cannot be reached.
 */
export async function serveDashboard(options: ServeOptions): Promise<RunningDashboard> {
  checkServeOptions(options);
  // Checked before connecting, so a bad value leaves no connection behind.
  const raw: unknown = options;
  if (typeof raw !== 'object' || raw === null) throw new InvalidArgumentError('serveDashboard options', 'must be an options object with connect');
  checkDashboardValues('serveDashboard options', options);
  const givenPort: unknown = options.port;
  if (givenPort !== undefined && (typeof givenPort !== 'number' || !Number.isSafeInteger(givenPort) || givenPort < 0 || givenPort > 65_535)) throw new InvalidArgumentError('serveDashboard options.port', 'must be an integer from 0 to 65535');
  if (options.host !== undefined && typeof (options.host as unknown) !== 'string') throw new InvalidArgumentError('serveDashboard options.host', 'must be a string');
  const admin = await Admin.connect(options.connect);
  const { connect: _connect, port = 3000, host = '127.0.0.1', ...rest } = options;
  const app = createDashboard({ ...rest, connection: admin });
  try {
    const { server, bound } = await new Promise<{ server: ReturnType<typeof serve>; bound: number }>((resolve, reject) => {
      const server = serve({ fetch: app.fetch, port, hostname: host }, (info) => resolve({ server, bound: info.port }));
      server.once('error', reject);
    });
    return {
      url: `http://${host.includes(':') ? `[${host}]` : host}:${bound}/`,
      port: bound,
      close: async () => {
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await admin.close();
      },
    };
  } catch (error) {
    await admin.close();
    throw error;
  }
}
