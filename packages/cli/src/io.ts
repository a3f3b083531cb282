/** Where the CLI writes and what it reads of its environment; the binary passes the process's own. */
export interface CliIo {
  /** Standard output: results. */
  out(text: string): void;
  /** Standard error: diagnostics. */
  err(text: string): void;
  /** Environment variables (`REDIS_URL`, `ECHO_CLUSTER_SEEDS`). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Whether stdout is a terminal: `watch` redraws in place only then. */
  readonly isTty: boolean;
  /** Aborted on Ctrl-C / SIGTERM: ends `watch` and `dashboard`. */
  readonly signal: AbortSignal;
}

/** The process's own streams, environment and signals. */
export function processIo(): CliIo {
  const controller = new AbortController();
  const stop = (): void => controller.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
    env: process.env,
    isTty: process.stdout.isTTY,
    signal: controller.signal,
  };
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) {
      resolve();
      return;
    }
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done);
  });
}

/** Resolves when `signal` aborts. */
export function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}
