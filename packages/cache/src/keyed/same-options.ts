import type { ResolvedNamespace } from './options.js';

/**
 * The first option in which two declarations of one namespace differ, or `undefined` when they
 * agree. Values are compared after defaults, so `{ name }` and `{ name, ttlMs: 30_000 }` agree.
 * A codec or a `cacheIf` is a function: it is the same only when it is the same object.
 */
export function differingOption(a: ResolvedNamespace<unknown>, b: ResolvedNamespace<unknown>): string | undefined {
  const plain = ['ttlMs', 'graceMs', 'leaseMs', 'maxSize', 'read', 'l1', 'coherence', 'logMaxLen', 'sweepMs', 'maxValueBytes', 'negativeTtlMs'] as const;
  if (a.codec !== b.codec) return 'codec';
  if (a.cacheIf !== b.cacheIf) return 'cacheIf';
  for (const field of plain) if (a[field] !== b[field]) return field;
  if (a.timeouts.softMs !== b.timeouts.softMs) return 'timeouts.softMs';
  if (a.timeouts.hardMs !== b.timeouts.hardMs) return 'timeouts.hardMs';
  if ((a.outage === null) !== (b.outage === null)) return 'outage';
  if (a.outage !== null && b.outage !== null) {
    for (const field of ['l2TimeoutMs', 'failures', 'openMs'] as const) if (a.outage[field] !== b.outage[field]) return `outage.${field}`;
  }
  return undefined;
}
