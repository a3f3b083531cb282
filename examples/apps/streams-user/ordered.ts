/**
 * Recipe "Ordered consumption" (docs/guide/bus-recipes.md): entries with the same value in the
 * `orderBy` field are handled one after another, in stream order, across the whole group;
 * different values still run concurrently.
 */
import type { StreamBus } from '@echo/bus';
import { say, sleep, streamName, until } from './shared.js';

export async function ordered(bus: StreamBus): Promise<void> {
  const ledger = bus.stream(streamName('ledger'));
  for (let step = 1; step <= 4; step++) {
    for (const account of ['alice', 'bob']) await ledger.append({ account, step: String(step) });
  }
  const seen: Record<string, string[]> = { alice: [], bob: [] };
  let running = 0;
  let mostAtOnce = 0;
  const handler = async ({ payload }: { readonly payload: Readonly<Record<string, string>> }): Promise<void> => {
    mostAtOnce = Math.max(mostAtOnce, ++running);
    await sleep(Math.random() * 20); // uneven work
    seen[payload.account ?? '']?.push(payload.step ?? '');
    running--;
  };
  // Two consumers of one group, four handlers each: order per account holds across both.
  const options = { start: 'head', concurrency: 4, orderBy: 'account' } as const;
  const c1 = await ledger.consume('balances', handler, { ...options, consumer: 'c1' });
  const c2 = await ledger.consume('balances', handler, { ...options, consumer: 'c2' });
  await until(() => (seen.alice?.length ?? 0) + (seen.bob?.length ?? 0) === 8);
  await c1.close();
  await c2.close();
  say(`orderBy: alice ${seen.alice?.join(' ') ?? ''}, bob ${seen.bob?.join(' ') ?? ''}; never more than 2 at once ${String(mostAtOnce <= 2)}`);
}
