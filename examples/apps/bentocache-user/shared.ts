/** What every chapter of the bentocache user's app shares: where Redis is, a run id, how it prints. */

/** The Redis the app talks to (`REDIS_URL`, else a local server). */
export const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A suffix for namespace names, so a second run against the same server starts from nothing. */
export const run = Date.now().toString(36);

/** Prints one fact. */
export function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** Waits until `check` answers true (another process's write takes a moment to arrive). */
export async function waitFor(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('timed out');
}

/** A product row, as a database would answer it. */
export interface Product {
  readonly id: number;
  readonly name: string;
  readonly price: number;
}

/** A slow database: counts its queries so the app can show which calls reached it. */
export class Database {
  queries = 0;

  async product(id: number): Promise<Product | null> {
    this.queries++;
    await new Promise((resolve) => setTimeout(resolve, 20));
    return id > 0 && id < 100 ? { id, name: `product ${String(id)}`, price: 10 * id } : null;
  }
}
