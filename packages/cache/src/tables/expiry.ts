/**
 * When a row filled at `now` expires (cache.md §6): `now + ttlMs + U`, where `U` is a uniform
 * integer in `[-spread, +spread]` and `spread = trunc(ttlMs × jitter)`. The spread keeps a herd of
 * rows filled together from expiring, and refilling, together.
 *
 * @param random a source in `[0, 1)`, injectable so tests can pin both ends of the range.
 */
export function expiresAt(now: number, ttlMs: number, jitter: number, random: () => number): number {
  const spread = Math.trunc(ttlMs * jitter);
  if (spread === 0) return now + ttlMs;
  // Clamped because an injected source may return exactly 1, which would overshoot by one.
  const offset = Math.min(2 * spread, Math.floor(random() * (2 * spread + 1))) - spread;
  return now + ttlMs + offset;
}
