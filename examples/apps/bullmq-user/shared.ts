/** What every chapter of the BullMQ user's app shares: where Redis is, queue names, how it prints. */

/** The Redis the app talks to (`REDIS_URL`, else a local server). */
export const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A queue name of this run's own, so a second run against the same server starts from nothing. */
export function queueName(chapter: string): string {
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

/** A promise and the function that resolves it, for "wait until the handler saw N jobs". */
export function signal(): { readonly done: Promise<void>; readonly fire: () => void } {
  let fire = (): void => undefined;
  const done = new Promise<void>((resolve) => (fire = resolve));
  return { done, fire };
}
