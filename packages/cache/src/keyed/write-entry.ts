import { type BrandedId, checkValueSize, transitions } from '@echo/protocol';
import type { Flight } from '../single-flight.js';
import { encodeEntryFrame } from './entry-frame.js';
import type { FillHost, Lifetimes } from './fill-host.js';

/**
 * Writes `value` to L2 (one `cache_write`, which also appends its coherence entry; under `token`
 * for a fill, `''` for a plain write) and then to this L1. A refused write (the fill lost its lease,
 * or L2 holds a newer frame) leaves L1 alone and is counted; in the outage mode an unreachable L2
 * still gets the value into L1 before the caller sees `L2UnavailableError`. `version` must already
 * be the stored one (`storedVersion`).
 */
export async function writeEntry<T>(
  host: FillHost<T>,
  key: string,
  value: T,
  lifetimes: Lifetimes,
  tags: readonly string[],
  token: string,
  version: BrandedId,
  flight: Flight | null,
): Promise<void> {
  const o = host.options;
  const expiresAt = lifetimes.ttl === Infinity ? 0 : host.now() + lifetimes.ttl;
  const encoded = encodeCapped(host, key, value);
  const frame = encodeEntryFrame(version, expiresAt, encoded);
  // Without an L1 nothing is kept, so no copy is made.
  const admit = (): void => {
    if (o.l1) host.admit(key, host.copies.owned(value, encoded), version, lifetimes, tags, flight);
  };
  const px = lifetimes.ttl === Infinity ? 0 : lifetimes.ttl + lifetimes.grace;
  const written = await host.guard.write(
    'set',
    () => host.scripts.send(transitions.cacheWrite({ namespace: host.name, key, frame, px, token, maxlen: o.logMaxLen, tags })),
    admit,
  );
  if (!written) {
    host.counters.fillsRefused++;
    return;
  }
  admit();
}

/**
 * The value's bytes for L2, refused over the namespace's cap before anything is written. `undefined`
 * is no bytes: its frame says so by its version's kind (see `storedVersion`), not through the codec.
 */
export function encodeCapped<T>(host: FillHost<T>, key: string, value: T): Buffer | string {
  if (value === undefined) return '';
  const encoded = host.options.codec.encode(value);
  checkValueSize(`cache value for ${host.name}/${key}`, encoded, host.options.maxValueBytes);
  return encoded;
}
