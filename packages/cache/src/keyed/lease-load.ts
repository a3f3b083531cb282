import { cacheEntryKey, transitions } from '@echo/protocol';
import { FactoryTimeoutError } from '../errors.js';
import type { Flight } from '../single-flight.js';
import { decodeEntryFrame } from './entry-frame.js';
import type { KeyedRead } from './events.js';
import { runFactory } from './factory-run.js';
import { nextLeaseToken } from './lease-token.js';
import type { FillHost, StaleValue } from './fill-host.js';
import type { Factory, GetOrSetOptions } from './options.js';

/**
 * One load of `key` across every process (the single flight's body). It reads first without the
 * lease (the tick's plain reads share one `MGET`, answered as buffers): a fresh entry costs what
 * `GET` costs. Only a missing entry, or one past its soft expiry, goes on to the lease rounds. Where
 * recent reads mostly missed (a cold keyspace), the plain read is skipped: the lease read answers a
 * fresh entry as well, and a miss then costs two round trips (lease, fill) instead of three. Each
 * round is one `cache_read` that answers a fresh frame, or hands this caller the key's L2 lease (it then runs
 * the factory), or says another process holds it (this caller waits for that fill's coherence
 * entry, or the lease's expiry, and asks again). A stale value in grace is served instead of
 * waiting. With L2 unreachable in the outage mode, an L1 value in grace is served, else the factory
 * runs and its answer stays in L1.
 *
 * @throws FactoryTimeoutError when no value arrives by `timeouts.hard` (default three leases).
 */
export async function loadThroughLease<T>(host: FillHost<T>, key: string, factory: Factory<T>, options: GetOrSetOptions<T>, flight: Flight): Promise<KeyedRead<T>> {
  const o = host.options;
  const local = host.peek(key);
  const now = host.now();
  let stale: StaleValue<T> | undefined = local !== undefined && now < local.graceUntil ? { value: host.copies.out(local), version: local.version } : undefined;
  if (options.forceFresh === true) return runFactory(host, key, factory, options, flight, undefined, '');
  if (!host.misses.mostlyMissing) {
    let first: Buffer | null;
    try {
      first = await host.guard.call('get', () => host.reads.read(cacheEntryKey(host.name, key)));
    } catch (error) {
      if (!host.guard.fallsBack) throw error;
      if (stale !== undefined && local !== undefined) return host.fallback(key, local);
      return runFactory(host, key, factory, options, flight, undefined, null);
    }
    const frame = first === null ? undefined : decodeEntryFrame(cacheEntryKey(host.name, key), first);
    const fresh = frame !== undefined && (frame.expiresAt === 0 || frame.expiresAt > host.now());
    host.misses.saw(fresh);
    if (fresh) {
      host.counters.l2Hits++;
      return { value: host.admitFrame(key, frame, flight), source: 'l2', version: frame.version };
    }
  }
  const token = nextLeaseToken();
  const hard = options.timeouts?.hard;
  const deadline = now + (hard ?? o.leaseMs * 3);
  const hex = o.codec.binary === true;
  let waited = false;
  for (;;) {
    let reply;
    try {
      reply = await host.guard.call('read', () => host.scripts.send(transitions.cacheRead({ namespace: host.name, key, token, leaseMs: Math.max(o.leaseMs, hard ?? 0), hex })));
    } catch (error) {
      if (!host.guard.fallsBack) throw error;
      if (stale !== undefined && local !== undefined) return host.fallback(key, local);
      return runFactory(host, key, factory, options, flight, undefined, null);
    }
    const frame = reply.frame === null ? undefined : decodeEntryFrame(cacheEntryKey(host.name, key), reply.frame, hex);
    if (!waited) host.misses.saw(reply.status === 'fresh');
    if (reply.status === 'fresh' && frame !== undefined) {
      const value = host.admitFrame(key, frame, flight);
      if (waited) host.counters.peerFills++;
      else host.counters.l2Hits++;
      return { value, source: waited ? 'peer' : 'l2', version: frame.version };
    }
    // A stale frame still in L2 is within its grace: the server drops it when grace ends.
    if (stale === undefined && frame !== undefined && o.grace > 0) stale = { value: host.admitFrame(key, frame, flight), version: frame.version };
    if (reply.status === 'leased') return runFactory(host, key, factory, options, flight, stale, token);
    if (stale !== undefined) return host.stale(key, stale.value, stale.version, 'refreshing');
    if (host.now() >= deadline) throw new FactoryTimeoutError(key, hard ?? o.leaseMs * 3);
    host.counters.leaseWaits++;
    waited = true;
    const until = Math.min(Math.max(reply.pttl, 1) + 2, deadline - host.now());
    // Without a log there is nothing to wake on: poll, at most at the lease's expiry.
    await host.waiters.wait(key, host.hasLog() ? until : Math.min(until, 20));
    host.live();
  }
}
