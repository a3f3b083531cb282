import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { findServerBinary } from './binary.js';
import { TEST_CLIENT_DEFAULTS, type ClientOptions, type ReplyMappingMode } from './client-options.js';
import { freePort, LOOPBACK } from './ports.js';
import { delay, waitForExit } from './process-utils.js';
import { probe } from './readiness.js';
import { checkStartRedis } from './options.js';
import { removeDirSync, track, untrack, type Disposable } from './registry.js';

/** `'none'`: nothing survives a crash. `'aof'`: every write is fsynced to the AOF before the reply. */
export type Persistence = 'none' | 'aof';

/** Options for {@link startRedis}. */
export interface StartRedisOptions {
  /** Default `'none'`. Use `'aof'` to test crash recovery with {@link RedisServer.kill} + `restart()`. */
  readonly persistence?: Persistence;
  /**
   * Extra `redis-server` arguments, appended after the testkit's own so they win on conflicts,
   * e.g. `['--maxmemory', '10mb']` or an ACL user `['--user', 'alice', 'on', '>pw', '~a:*', '+get', '+set']`.
   */
  readonly args?: readonly string[];
  /** Server binary (path or command name); default {@link findServerBinary}. */
  readonly binary?: string;
  /** Sets `--requirepass`; the handle's `url` and `client()` then authenticate with it. */
  readonly password?: string;
  /**
   * How long to wait for the first PING to succeed; default 20000 ms (a server that is up answers at
   * once; the bound only has to outlast a start on a busy machine). A server that answers LOADING
   * (replaying its AOF) is waited for while it loads, up to 60 s from the start.
   */
  readonly readyTimeoutMs?: number;
}

/** A real `redis-server`/`valkey-server` child process owned by this process. */
export interface RedisServer {
  /** Always `127.0.0.1`. */
  readonly host: string;
  /** Chosen once from the OS's free ports and kept across `restart()`, so clients reconnect. */
  readonly port: number;
  /** `redis://127.0.0.1:<port>`, with `:<password>@` when a password is set. */
  readonly url: string;
  /** The server's private temp dir (`--dir`): AOF files, `nodes.conf` and `redis.log` live here. */
  readonly dir: string;
  /** The server's stdout/stderr; read it with {@link RedisServer.logTail} when something fails. */
  readonly logFile: string;
  /** pid of the current server process; changes after `restart()`. */
  readonly pid: number;
  /** The executable that was spawned. */
  readonly binary: string;
  /** The `requirepass` password, if one was set. */
  readonly password: string | undefined;
  /** `false` after `kill()`, `stop()`, or if the server died on its own. */
  readonly running: boolean;
  /**
   * A new ioredis client connected to this server (test-friendly retry defaults, see
   * {@link TEST_CLIENT_DEFAULTS}; any option can be overridden). `stop()` disconnects the clients
   * still open so a forgotten one cannot keep the test process alive with a reconnect loop;
   * `kill()` leaves them reconnecting, so they resume after `restart()`.
   */
  client<M extends ReplyMappingMode = 'legacy'>(options?: ClientOptions<M>): Redis<M>;
  /** Graceful shutdown (SIGTERM, SIGKILL after 5 s), waits for exit, removes the temp dir. Idempotent. */
  stop(): Promise<void>;
  /**
   * Simulates a crash: sends `signal` (default SIGKILL), waits for the exit, keeps the dir so
   * `restart()` can recover from the AOF. The signal must terminate the server.
   */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /**
   * Starts the server again on the same port, with the same dir and arguments (so AOF data
   * survives); `pid` reflects the new process. A running server is shut down gracefully first.
   * Not possible after `stop()`, which deleted the dir.
   */
  restart(): Promise<void>;
  /** The last `lines` lines of the server's log. */
  logTail(lines?: number): string;
}

/** The server exited or never answered during startup. The message carries the log tail. */
export class RedisStartError extends Error {
  /** The server could not bind its port(s); the caller may retry on another port. */
  readonly addressInUse: boolean;
  /** The tail of the server's log for this start attempt. */
  readonly log: string;

  constructor(message: string, log: string) {
    super(`${message}\n--- server log (tail) ---\n${log}`);
    this.name = 'RedisStartError';
    this.log = log;
    this.addressInUse = log.includes('Address already in use');
  }
}

/** Internal recipe shared by {@link startRedis} and the cluster. */
export interface LaunchPlan {
  readonly binary: string;
  readonly password: string | undefined;
  readonly readyTimeoutMs: number;
  readonly pickPort: () => Promise<number>;
  readonly buildArgs: (port: number, dir: string) => readonly string[];
}

const DEFAULT_READY_TIMEOUT_MS = 20_000;
const STOP_GRACE_MS = 5_000;
/** The longest a start waits for a server that keeps answering LOADING (a long AOF replay). */
const LOADING_MAX_MS = 60_000;
const PORT_ATTEMPTS = 5;

function tailOf(file: string, from: number, lines: number): string {
  try {
    const text = readFileSync(file, 'latin1').slice(from);
    return text.split('\n').slice(-lines - 1).join('\n').trimEnd();
  } catch {
    return '(no log)';
  }
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

class ServerProcess implements RedisServer, Disposable {
  readonly host = LOOPBACK;
  readonly dir: string;
  readonly logFile: string;
  readonly binary: string;
  readonly password: string | undefined;
  readonly #plan: LaunchPlan;
  readonly #clients = new Set<Redis<ReplyMappingMode>>();
  #port = 0;
  #argv: readonly string[] = [];
  #child: ChildProcess | undefined;
  #stopped: Promise<void> | undefined;

  constructor(plan: LaunchPlan, dir: string) {
    this.#plan = plan;
    this.dir = dir;
    this.logFile = join(dir, 'redis.log');
    this.binary = plan.binary;
    this.password = plan.password;
  }

  get port(): number {
    return this.#port;
  }

  get url(): string {
    const auth = this.password === undefined ? '' : `:${encodeURIComponent(this.password)}@`;
    return `redis://${auth}${this.host}:${this.#port}`;
  }

  get pid(): number {
    return this.#child?.pid ?? -1;
  }

  get running(): boolean {
    return this.#stopped === undefined && this.#child !== undefined && !hasExited(this.#child);
  }

  /** First start: picks a port, retrying on a fresh one when another process won the race for it. */
  async start(): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      this.#port = await this.#plan.pickPort();
      this.#argv = this.#plan.buildArgs(this.#port, this.dir);
      try {
        await this.#launch();
        return;
      } catch (error) {
        if (!(error instanceof RedisStartError && error.addressInUse && attempt < PORT_ATTEMPTS)) throw error;
      }
    }
  }

  async #launch(): Promise<void> {
    const logFrom = sizeOf(this.logFile);
    const fd = openSync(this.logFile, 'a');
    let child: ChildProcess;
    try {
      // The log file, not a pipe: a pipe nobody drains fills up and blocks the server mid-test.
      child = spawn(this.binary, this.#argv, { cwd: this.dir, stdio: ['ignore', fd, fd], detached: false });
    } finally {
      closeSync(fd);
    }
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', (error) => reject(new RedisStartError(`Could not spawn ${this.binary}: ${error.message}`, '')));
    });
    // Later errors (a kill() racing an exit) must not become uncaught 'error' events.
    child.on('error', () => undefined);
    // The exit hooks kill a forgotten server; unref lets a script that forgot stop() still exit.
    child.unref();
    this.#child = child;
    await this.#awaitReady(child, logFrom);
  }

  async #awaitReady(child: ChildProcess, logFrom: number): Promise<void> {
    const started = Date.now();
    let deadline = started + this.#plan.readyTimeoutMs;
    const what = `${this.binary} on port ${this.#port}`;
    for (;;) {
      const seen = await probe(this.host, this.#port, this.password, 500);
      // A server that answers LOADING is up and replaying its AOF: the wait runs on while it loads
      // (a restart in the 60-minute fault run spent 4.7 s of a 5 s budget replaying and was killed
      // as unready), bounded by LOADING_MAX_MS.
      if (seen.state === 'loading') deadline = Math.max(deadline, Math.min(started + LOADING_MAX_MS, Date.now() + this.#plan.readyTimeoutMs));
      if (hasExited(child)) {
        const status = child.exitCode !== null ? `code ${child.exitCode}` : `signal ${String(child.signalCode)}`;
        throw new RedisStartError(`${what} exited during startup (${status}).`, tailOf(this.logFile, logFrom, 20));
      }
      // A foreign pid means another server owns the port and ours is about to fail its bind.
      if (seen.state === 'ready' && (seen.pid === undefined || seen.pid === child.pid)) return;
      if (Date.now() >= deadline) {
        child.kill('SIGKILL');
        await waitForExit(child, STOP_GRACE_MS);
        throw new RedisStartError(
          `${what} did not answer PING within ${this.#plan.readyTimeoutMs} ms (last probe: ${seen.state}).`,
          tailOf(this.logFile, logFrom, 20),
        );
      }
      await delay(seen.state === 'unreachable' ? 10 : 25);
    }
  }

  async #terminate(signal: NodeJS.Signals): Promise<void> {
    const child = this.#child;
    if (child === undefined || hasExited(child)) return;
    child.kill(signal);
    if (await waitForExit(child, STOP_GRACE_MS)) return;
    if (signal !== 'SIGKILL') {
      child.kill('SIGKILL');
      if (await waitForExit(child, STOP_GRACE_MS)) return;
    }
    throw new Error(`${this.binary} (pid ${this.pid}) did not exit after ${signal}.`);
  }

  client<M extends ReplyMappingMode = 'legacy'>(options?: ClientOptions<M>): Redis<M> {
    const client = new Redis<M>({ ...TEST_CLIENT_DEFAULTS, host: this.host, port: this.#port, password: this.password, ...options });
    this.#clients.add(client);
    client.once('end', () => this.#clients.delete(client));
    return client;
  }

  stop(): Promise<void> {
    this.#stopped ??= this.#stop();
    return this.#stopped;
  }

  async #stop(): Promise<void> {
    for (const client of this.#clients) client.disconnect();
    this.#clients.clear();
    try {
      await this.#terminate('SIGTERM');
    } finally {
      await rm(this.dir, { recursive: true, force: true, maxRetries: 3 });
      untrack(this);
    }
  }

  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    if (this.#stopped !== undefined) throw new Error('kill() after stop(): the server is gone.');
    const child = this.#child;
    if (child === undefined || hasExited(child)) return;
    child.kill(signal);
    if (!(await waitForExit(child, STOP_GRACE_MS))) {
      throw new Error(`${this.binary} (pid ${this.pid}) is still running ${STOP_GRACE_MS} ms after ${signal}.`);
    }
  }

  async restart(): Promise<void> {
    if (this.#stopped !== undefined) throw new Error('restart() after stop(): the temp dir was removed.');
    await this.#terminate('SIGTERM');
    await this.#launch();
  }

  logTail(lines = 20): string {
    return tailOf(this.logFile, 0, lines);
  }

  disposeSync(): void {
    const child = this.#child;
    if (child !== undefined && !hasExited(child)) child.kill('SIGKILL');
    removeDirSync(this.dir);
  }
}

/**
 * Starts a server from a plan. Internal: {@link startRedis} and the cluster build their plans.
 * The handle is tracked before the child exists so a Ctrl-C during startup still cleans up.
 */
export async function launchServer(plan: LaunchPlan): Promise<RedisServer> {
  const dir = await mkdtemp(join(tmpdir(), 'echo-redis-'));
  const server = new ServerProcess(plan, dir);
  track(server);
  try {
    await server.start();
  } catch (error) {
    await server.stop().catch(() => undefined);
    throw error;
  }
  return server;
}

/** The arguments every standalone server gets before the caller's own. */
export function baseArgs(port: number, dir: string, persistence: Persistence, password: string | undefined): string[] {
  return [
    ...['--port', String(port), '--bind', LOOPBACK, '--save', '', '--dir', dir],
    ...(persistence === 'aof' ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no']),
    ...(password === undefined ? [] : ['--requirepass', password]),
  ];
}

/**
 * Spawns a real Redis (or Valkey) server on a free loopback port with its own temp dir and waits
 * until it answers PING.
 *
 * Why a real server: the product's correctness lives in Lua scripts, MULTI semantics, ACLs and
 * persistence, none of which a mock reproduces. A server starts in about 0.1 s.
 *
 * The server is registered for cleanup: it is killed and its dir removed when this process exits
 * (normally, via `process.exit`, an uncaught exception, or SIGINT/SIGTERM/SIGHUP). A SIGKILL of
 * this process cannot be intercepted by anything, so in that one case the server is orphaned.
 *
 * @throws {@link RedisServerNotFoundError} when no binary is found; {@link RedisStartError} when
 *   the server exits or does not answer within `readyTimeoutMs` (message includes its log tail).
 */
export async function startRedis(options: StartRedisOptions = {}): Promise<RedisServer> {
  checkStartRedis(options);
  const persistence = options.persistence ?? 'none';
  const extra = options.args ?? [];
  return launchServer({
    binary: options.binary ?? findServerBinary(),
    password: options.password,
    readyTimeoutMs: options.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS,
    pickPort: freePort,
    buildArgs: (port, dir) => [...baseArgs(port, dir, persistence, options.password), ...extra],
  });
}
