import { execute, mintId, transitions } from '@echo/protocol';
import { FactoryTimeoutError } from '../errors.js';
import type { Flight } from '../single-flight.js';
import { VERSION_KIND } from './bulk-delete.js';
import { cacheFill } from './cache-hooks.js';
import type { KeyedRead } from './events.js';
import type { FillHost, StaleValue } from './fill-host.js';
import { storedVersion } from './entry-frame.js';
import { type Factory, type GetOrSetOptions, checkTags, lifetime, nonNegative } from './options.js';
import { encodeCapped, writeEntry } from './write-entry.js';

/**
 * Runs the factory for `key` under the call's soft and hard timeouts and writes what it answers.
 * `token` is the lease to fill under, `''` for an unfenced write (forceFresh), or `null` when L2 is
 * unreachable (the answer then stays in L1).
 *
 * Past the soft timeout with a stale value in grace, the stale value is answered and the factory
 * goes on to refresh the entry; past the hard timeout the call fails and the factory goes on too.
 * A factory that fails gives its lease back, so callers waiting elsewhere retry at once, and a
 * stale value in grace is served in its place. So does a factory that declines to cache its answer
 * (`ctx.skip()`, or `cacheIf` answering false): the answer goes to its callers uncached. An absent
 * answer (`undefined` or `null`) lives `negativeTtl` with no grace when one is set.
 *
 * @throws FactoryTimeoutError past `timeouts.hard`; the factory's own error when there is no stale value.
 */
export async function runFactory<T>(
  host: FillHost<T>,
  key: string,
  factory: Factory<T>,
  options: GetOrSetOptions<T>,
  flight: Flight,
  stale: StaleValue<T> | undefined,
  token: string | null,
): Promise<KeyedRead<T>> {
  const o = host.options;
  // Minted before the factory runs: a write or delete announced while it loads is newer than its answer.
  const minted = mintId(VERSION_KIND);
  const started = host.now();
  let ttl = lifetime('ttl', options.ttl, o.ttl);
  let tags = options.tags ?? [];
  // What the factory said through its context, read once it has answered.
  const said = { ttl: false, skip: false };
  const ctx = {
    key,
    stale: stale?.value,
    setTtl: (ms: number) => {
      ttl = lifetime('ttl', ms, ttl);
      said.ttl = true;
    },
    setTags: (next: readonly string[]) => void (tags = checkTags(next)),
    skip: () => void (said.skip = true),
  };
  const cacheIf = options.cacheIf ?? ((value: T) => o.cacheIf?.(value) ?? true);
  const filled = (async (): Promise<KeyedRead<T>> => {
    const value = await factory(ctx);
    if (said.skip || !cacheIf(value)) {
      if (token !== null && token !== '') await releaseLease(host, key, token);
      host.counters.uncached++;
      return { value, source: 'uncached', version: undefined };
    }
    const negativeTtl = options.negativeTtl ?? o.negativeTtl;
    const lifetimes =
      negativeTtl !== undefined && !said.ttl && (value === undefined || value === null)
        ? { ttl: negativeTtl, grace: 0 }
        : { ttl, grace: nonNegative('grace', options.grace, o.grace) };
    const version = storedVersion(value, minted);
    if (token === null) {
      const encoded = encodeCapped(host, key, value);
      host.admit(key, host.copies.owned(value, encoded), version, lifetimes, tags, flight);
      host.counters.fallbacks++;
      return { value, source: 'fallback-fill', version: undefined };
    }
    await writeEntry(host, key, value, lifetimes, tags, token, version, flight);
    host.counters.fills++;
    cacheFill(host.name, key, host.now() - started);
    host.filled({ key, version, ms: host.now() - started });
    return { value, source: 'fill', version };
  })();
  const failed = (error: unknown): void => {
    host.counters.factoryErrors++;
    host.factoryFailed({ key, error });
    if (token !== null && token !== '') void releaseLease(host, key, token);
  };
  const { soft, hard } = options.timeouts ?? {};
  const raced: Promise<KeyedRead<T> | 'soft' | 'hard'>[] = [filled];
  if (stale !== undefined && soft !== undefined) raced.push(delay(soft, 'soft'));
  if (hard !== undefined) raced.push(delay(hard, 'hard'));
  try {
    const first = raced.length === 1 ? await filled : await Promise.race(raced);
    if (first === 'soft' || first === 'hard') {
      filled.catch(failed);
      if (first === 'hard') throw new FactoryTimeoutError(key, hard ?? 0);
      const served = stale as StaleValue<T>;
      return host.stale(key, served.value, served.version, 'soft-timeout');
    }
    return first;
  } catch (error) {
    if (error instanceof FactoryTimeoutError) throw error;
    failed(error);
    if (stale !== undefined) return host.stale(key, stale.value, stale.version, 'factory-error');
    throw error;
  }
}

/** Gives a failed fill's lease back (its `r` log entry wakes the waiters); a lost release only makes them wait out the lease. */
function releaseLease<T>(host: FillHost<T>, key: string, token: string): Promise<unknown> {
  return execute(host.connection, transitions.cacheRelease({ namespace: host.name, key, token, maxlen: host.options.logMaxLen })).catch(() => undefined);
}

/** Resolves with `value` after `ms`, without keeping the process alive. */
function delay<V>(ms: number, value: V): Promise<V> {
  return new Promise((resolve) => setTimeout(() => resolve(value), ms).unref());
}
