import { startRedis } from '@echo/testkit';

/** Where the bench talks: a server it started (and stops), or the one `REDIS_URL` names. */
export interface BenchTarget {
  readonly url: string;
  readonly host: string;
  readonly port: number;
  readonly password: string | undefined;
  readonly db: number;
  /** True when `REDIS_URL` was given: the server is someone else's and is never stopped here. */
  readonly external: boolean;
  stop(): Promise<void>;
}

/**
 * One server for the whole run. With `REDIS_URL` set the bench uses that server, and FLUSHALLs it
 * between runs, so point it at a server that holds nothing you want to keep.
 */
export async function acquireTarget(): Promise<BenchTarget> {
  const external = process.env.REDIS_URL;
  if (external !== undefined && external !== '') {
    const url = new URL(external);
    return {
      url: external,
      host: url.hostname || '127.0.0.1',
      port: url.port === '' ? 6379 : Number(url.port),
      password: url.password === '' ? undefined : decodeURIComponent(url.password),
      db: url.pathname.length > 1 ? Number(url.pathname.slice(1)) : 0,
      external: true,
      stop: () => Promise.resolve(),
    };
  }
  const server = await startRedis();
  return { url: server.url, host: server.host, port: server.port, password: server.password, db: 0, external: false, stop: () => server.stop() };
}
