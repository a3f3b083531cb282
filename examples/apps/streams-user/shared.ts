/** What every chapter of the Redis Streams user's app shares: where Redis is, names, how it prints. */

/** The Redis the app talks to (`REDIS_URL`, else a local server). */
export const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A stream name of this run's own, so a second run against the same server starts from nothing. */
export function streamName(chapter: string): string {
  return `${chapter}-${String(process.pid)}`;
}

/** Prints one fact. */
export function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** Resolves after `ms`. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `check` every 20 ms until it answers true; throws after `ms` (a consumer's work arrives asynchronously). */
export async function until(check: () => boolean | Promise<boolean>, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await sleep(20);
  }
}
