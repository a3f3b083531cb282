import type { ResolvedNamespace } from './options.js';

/**
 * The first option in which two declarations of one namespace differ, or `undefined` when they
 * agree. Values are compared after defaults, so `{ name }` and `{ name, ttl: 30_000 }` agree.
 * A codec or a `cacheIf` is a function: it is the same only when it is the same object.
 */
export function differingOption(a: ResolvedNamespace<unknown>, b: ResolvedNamespace<unknown>): string | undefined {
  const plain = ['ttl', 'grace', 'leaseMs', 'maxSize', 'read', 'l1', 'coherence', 'logMaxLen', 'sweepMs', 'maxValueBytes', 'negativeTtl'] as const;
  if (a.codec !== b.codec) return 'codec';
  if (a.cacheIf !== b.cacheIf) return 'cacheIf';
  for (const field of plain) if (a[field] !== b[field]) return field;
  if (a.timeouts.soft !== b.timeouts.soft) return 'timeouts.soft';
  if (a.timeouts.hard !== b.timeouts.hard) return 'timeouts.hard';
  if ((a.outage === null) !== (b.outage === null)) return 'outage';
  if (a.outage !== null && b.outage !== null) {
    for (const field of ['l2TimeoutMs', 'failures', 'openMs'] as const) if (a.outage[field] !== b.outage[field]) return `outage.${field}`;
  }
  return undefined;
}
