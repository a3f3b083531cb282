/**
 * Shared pieces of the chaos tests: polling, sleeping, an event tally, worker processes, a
 * partitioning TCP proxy, and the end-of-run audit of a queue's keyspace.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { Connection, JobId, LifecycleEvent } from '@echo/protocol/queue';
import { waitFor } from '@echo/testkit';
import type { Queue } from '../../src/index.js';

export { sleep } from '@echo/testkit';

/** Polls `check` every `everyMs` until it answers true; rejects with `what` after `timeoutMs`. */
export function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs: number, everyMs = 50): Promise<void> {
  return waitFor(check, { what, timeoutMs, everyMs });
}

/** Counts lifecycle events per job id, by event name. */
export class EventTally {
  readonly completed = new Map<string, number>();
  readonly other = new Map<string, number>();
  total = 0;

  readonly listener = (event: LifecycleEvent): void => {
    this.total++;
    const map = event.event === 'completed' ? this.completed : this.other;
    map.set(event.job, (map.get(event.job) ?? 0) + 1);
  };

  /** Ids with more than one `completed` event: a completion reported (accepted) twice. */
  twice(): string[] {
    return [...this.completed].filter(([, n]) => n > 1).map(([id]) => id);
  }

  /** Of `ids`, those with no `completed` event at all. */
  missing(ids: readonly string[]): string[] {
    return ids.filter((id) => !this.completed.has(id));
  }
}

/** How many of the job rows of `ids` still exist (a completed job's row is deleted). */
export async function rowsLeft(conn: Connection, queue: Queue, ids: readonly JobId[]): Promise<number> {
  let left = 0;
  for (let at = 0; at < ids.length; at += 1000) {
    const replies = await conn.pipeline(ids.slice(at, at + 1000).map((id) => ['EXISTS', queue.keys.job(id)] as const));
    for (const r of replies) {
      if (!r.ok) throw r.error;
      left += Number(r.value);
    }
  }
  return left;
}

/** Counts how often each value occurs. */
export function occurrences(values: readonly string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const v of values) out.set(v, (out.get(v) ?? 0) + 1);
  return out;
}

const fixture = fileURLToPath(new URL('fixtures/worker-process.ts', import.meta.url));
const packageRoot = fileURLToPath(new URL('../..', import.meta.url));

/** A worker running as its own Node process (see fixtures/worker-process.ts). */
export interface WorkerProcess {
  readonly child: ChildProcess;
  /** Resolves once the worker consumes; rejects if the process exits first. */
  readonly ready: Promise<void>;
  /** True once a held spare has loaded and connected (CHAOS_HOLD=1) and waits for {@link go}. */
  isWarm(): boolean;
  /** Lets a held spare start consuming. */
  go(): void;
  isReady(): boolean;
  exited(): boolean;
  stderr(): string;
}

/** Spawns the worker fixture under tsx with the package resolved from its sources. */
export function spawnWorker(env: Readonly<Record<string, string>>): WorkerProcess {
  const child = spawn(process.execPath, ['--conditions=@echo/source', '--import', 'tsx', fixture], {
    cwd: packageRoot,
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdin.on('error', () => undefined);
  let warm = false;
  let ready = false;
  let gone = false;
  let out = '';
  let err = '';
  child.stderr.on('data', (chunk: Buffer) => (err = (err + chunk.toString()).slice(-4000)));
  const exit = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exit.then(() => (gone = true));
  const readyPromise = new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (!warm && out.includes('warm ')) warm = true;
      if (!ready && out.includes('ready ')) {
        ready = true;
        resolve();
      }
    });
    void exit.then(() => {
      if (!ready) reject(new Error(`worker process ${child.pid ?? '?'} exited before it was ready:\n${err}`));
    });
  });
  readyPromise.catch(() => undefined);
  return {
    child,
    ready: readyPromise,
    isWarm: () => warm && !gone,
    go: () => child.stdin.write('go\n'),
    isReady: () => ready && !gone,
    exited: () => gone,
    stderr: () => err,
  };
}

/** SIGKILLs a worker process and waits for it to be gone. */
export async function killWorker(worker: WorkerProcess): Promise<void> {
  const child = worker.child;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGKILL');
  await gone;
}

/**
 * A TCP proxy in front of the server that can partition its clients from it: swallow what they
 * send (`blackhole`), drop their sockets (`cut`), refuse them (`refuse`), and let them back (`heal`).
 * Only the clients that connect through it are affected; everyone else keeps talking to the server.
 */
export class PartitionProxy {
  readonly #server: Server;
  readonly #pairs = new Set<[Socket, Socket]>();
  #mode: 'open' | 'blackhole' | 'refuse' = 'open';
  /** Connections refused while partitioned. */
  refused = 0;

  private constructor(server: Server) {
    this.#server = server;
  }

  static async start(target: { host: string; port: number }): Promise<PartitionProxy> {
    const server = createServer();
    const proxy = new PartitionProxy(server);
    server.on('connection', (client) => proxy.#accept(client, target));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get port(): number {
    return (this.#server.address() as AddressInfo).port;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  #accept(client: Socket, target: { host: string; port: number }): void {
    client.on('error', () => undefined);
    if (this.#mode === 'refuse') {
      this.refused++;
      client.destroy();
      return;
    }
    const upstream = connect(target.port, target.host);
    upstream.on('error', () => undefined);
    const pair: [Socket, Socket] = [client, upstream];
    this.#pairs.add(pair);
    client.on('data', (chunk: Buffer) => {
      if (this.#mode === 'open') upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    const end = (): void => {
      this.#pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end);
    upstream.on('close', end);
  }

  /** What the clients send from now on is swallowed: their calls are in flight, never answered. */
  blackhole(): void {
    this.#mode = 'blackhole';
  }

  /** New connections are refused until {@link heal}. */
  refuse(): void {
    this.#mode = 'refuse';
  }

  /** Drops every proxied connection now. */
  cut(): void {
    for (const [client, upstream] of this.#pairs) {
      client.destroy();
      upstream.destroy();
    }
    this.#pairs.clear();
  }

  heal(): void {
    this.#mode = 'open';
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
