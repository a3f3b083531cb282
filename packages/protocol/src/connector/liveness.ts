import type { Redis } from 'ioredis';
import { ConnectionLostError, noteLastReply } from '../errors/connection.js';

/** The smallest watch period: finer ticks cost timers and buy nothing at a human scale. */
const MIN_TICK_MS = 50;

/** A command as the driver queues it, waiting for its reply. */
interface Waiting {
  readonly name: string;
  readonly args: readonly unknown[];
  reject(error: Error): void;
}

/**
 * How long a command may wait for its reply by its own arguments, beyond the reply timeout:
 * `BLPOP`/`BRPOP`/`BLMOVE`/`BZPOP*`/`BLMPOP`/`BZMPOP` their timeout (seconds), `XREAD`/`XREADGROUP`
 * their `BLOCK` (ms), `WAIT`/`WAITAOF` their timeout (ms). A zero timeout blocks until a push, so
 * `Infinity`; every other command 0.
 */
export function blockAllowanceMs(name: string, args: readonly unknown[]): number {
  const verb = name.toUpperCase();
  switch (verb) {
    case 'BLPOP':
    case 'BRPOP':
    case 'BZPOPMIN':
    case 'BZPOPMAX':
    case 'BRPOPLPUSH':
    case 'BLMOVE':
      return seconds(args[args.length - 1]);
    case 'BLMPOP':
    case 'BZMPOP':
      return seconds(args[0]);
    case 'XREAD':
    case 'XREADGROUP': {
      const at = args.findIndex((arg) => String(arg).toUpperCase() === 'BLOCK');
      return at === -1 ? 0 : millis(args[at + 1]);
    }
    case 'WAIT':
      return millis(args[1]);
    case 'WAITAOF':
      return millis(args[2]);
    default:
      return 0;
  }
}

function seconds(value: unknown): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) return 0;
  return n === 0 ? Infinity : n * 1000;
}

function millis(value: unknown): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) return 0;
  return n === 0 ? Infinity : n;
}

/**
 * Watches one driver socket for silence: a half-open link (replies blackholed, a peer gone without
 * a reset) otherwise leaves every call waiting for as long as the OS keeps the socket, minutes,
 * with nothing reported. Replies come back in order, so only the oldest call waiting matters: when
 * it has waited longer than `timeoutMs` plus what it asked to block for, the link is presumed dead,
 * every call waiting on it fails with {@link ConnectionLostError} (it may or may not have run, as
 * after any dropped socket) and the socket is destroyed, so the driver reconnects on its schedule.
 *
 * It costs nothing per call: while the socket is open a timer looks at the head of the driver's
 * queue a few times per timeout. It also stamps when the socket last heard anything, so an outage
 * can be dated from the last reply instead of from the first call that failed.
 */
export class Liveness {
  readonly #node: Redis;
  readonly #timeoutMs: number;
  readonly #tickMs: number;
  #timer: NodeJS.Timeout | undefined;
  #head: unknown;
  #since = 0;
  /**
   * When the socket last received bytes, on the monotonic clock (`performance.now()`): one stamp per
   * read of the socket, which the silence check reads as it is and {@link lastReplyAt} turns into
   * Unix ms only when an outage report asks.
   */
  #heardAt: number | undefined;
  #watchedStream: unknown;

  constructor(node: Redis, timeoutMs: number) {
    this.#node = node;
    this.#timeoutMs = timeoutMs;
    this.#tickMs = Math.max(MIN_TICK_MS, Math.floor(timeoutMs / 4));
    node.on('connect', () => this.#start());
    node.on('close', () => this.stop());
  }

  /** `Date.now()` when the socket last received bytes (whole ms, not later than it); `undefined` before the first. */
  get lastReplyAt(): number | undefined {
    const heard = this.#heardAt;
    return heard === undefined ? undefined : Math.floor(Date.now() - (performance.now() - heard));
  }

  /** Stops watching until the socket connects again. */
  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#head = undefined;
  }

  /** Stamps `error` with this socket's last reply, so an outage report can start there. */
  stamp<E extends Error>(error: E): E {
    const at = this.lastReplyAt;
    if (error instanceof ConnectionLostError && at !== undefined) noteLastReply(error, at);
    return error;
  }

  #start(): void {
    const stream = this.#node.stream as NodeJS.EventEmitter | undefined;
    if (stream !== undefined && stream !== this.#watchedStream) {
      this.#watchedStream = stream;
      stream.on('data', () => {
        this.#heardAt = performance.now();
      });
    }
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => this.#tick(), this.#tickMs);
    this.#timer.unref();
  }

  #tick(): void {
    const item = this.#node.commandQueue.peekFront() as { readonly command: Waiting } | undefined;
    if (item === undefined) {
      this.#head = undefined;
      return;
    }
    // Silence is timed on the host's monotonic clock: an application that fakes `Date` (a test moving
    // it a day on) or a wall clock that steps must not make a live link look silent.
    const now = performance.now();
    if (item.command !== this.#head) {
      this.#head = item.command;
      this.#since = now;
      return;
    }
    const waited = now - this.#since;
    const heard = this.#heardAt;
    // Bytes still arriving (a long reply, pub/sub pushes) are not silence.
    if (heard !== undefined && now - heard < this.#timeoutMs) return;
    if (waited < this.#timeoutMs + blockAllowanceMs(item.command.name, item.command.args)) return;
    this.#dead(waited);
  }

  #dead(waited: number): void {
    this.stop();
    const node = this.#node;
    const reason = `no reply for ${String(Math.round(waited))} ms: the link is presumed dead and was dropped`;
    for (const item of node.commandQueue.toArray() as { readonly command: Waiting }[]) {
      item.command.reject(this.stamp(new ConnectionLostError(reason)));
    }
    node.commandQueue.clear();
    (node.stream as { destroy(): void } | undefined)?.destroy();
  }
}
