import { InvalidArgumentError, strictOptions, type OptionCheck } from '@echo/protocol/queue';

/**
 * A retry delay curve (queue.md §4.2). The wire takes a literal delay; the curve lives above it.
 * `attempt` is the attempt that just failed, which equals its token (>= 1).
 */
export type Backoff =
  | { readonly type: 'fixed'; readonly ms: number }
  | { readonly type: 'exponential'; readonly base: number; readonly cap: number }
  | { readonly type: 'jitter'; readonly inner: Backoff };

/** Always `ms`. */
export function fixed(ms: number): Backoff {
  assertWhole('backoff ms', ms, 0);
  return { type: 'fixed', ms };
}

/** `min(base · 2^(attempt−1), cap)`, in exact integers. */
export function exponential(base: number, cap: number): Backoff {
  assertWhole('backoff base', base, 1);
  assertWhole('backoff cap', cap, 1);
  return { type: 'exponential', base, cap };
}

/** A uniform integer in `[0, inner(attempt)]`, so a herd of failures does not retry in lockstep. */
export function jitter(inner: Backoff): Backoff {
  return { type: 'jitter', inner };
}

/** The delay in ms before retrying after `attempt` failed. */
export function backoffDelay(policy: Backoff, attempt: number, random: () => number = Math.random): number {
  assertWhole('attempt', attempt, 1);
  switch (policy.type) {
    case 'fixed':
      assertWhole('backoff ms', policy.ms, 0);
      return policy.ms;
    case 'exponential': {
      assertWhole('backoff base', policy.base, 1);
      assertWhole('backoff cap', policy.cap, 1);
      // Clamp the shift first: 2^(a-1) overflows a double's exact range long before a is large.
      const shift = BigInt(Math.min(attempt - 1, 62));
      const raw = BigInt(policy.base) << shift;
      return raw > BigInt(policy.cap) ? policy.cap : Number(raw);
    }
    case 'jitter': {
      const top = backoffDelay(policy.inner, attempt, random);
      return top <= 0 ? 0 : Math.floor(random() * (top + 1));
    }
  }
}

function assertWhole(name: string, value: number, min: number): void {
  if (!Number.isSafeInteger(value) || value < min) throw new InvalidArgumentError(name, `must be an integer >= ${min}`);
}

/** A backoff as a row stores it [TS]: its JSON, checked by walking the curve once. */
export function encodeBackoff(policy: Backoff): string {
  checkCurve(policy);
  return JSON.stringify(policy);
}

/**
 * Reads a stored backoff; `undefined` when the text is not a curve this version knows (a newer
 * writer's, or a hand-edited row), so the worker's own curve applies instead of failing the job.
 */
export function parseBackoff(text: string): Backoff | undefined {
  try {
    const policy = JSON.parse(text) as Backoff;
    checkCurve(policy);
    return policy;
  } catch {
    return undefined;
  }
}

/**
 * Walks a curve at a few attempts: a policy that cannot produce a delay would otherwise fail every
 * retry. @throws InvalidArgumentError when it cannot.
 */
export function checkCurve(policy: Backoff): void {
  for (const attempt of [1, 2, 64]) {
    let delay: number;
    try {
      delay = backoffDelay(policy, attempt, () => 0.5);
    } catch {
      delay = NaN;
    }
    if (!Number.isSafeInteger(delay) || delay < 0) throw new InvalidArgumentError('backoff', 'must produce whole, non-negative delays');
  }
}

const CURVE_HINTS = {
  delay: "BullMQ's backoff { type, delay } is fixed(ms) or exponential(base, cap) here (import them from @echo/queue)",
  jitter: 'jitter is jitter(fixed(ms)) or jitter(exponential(base, cap)) here',
};
/** The keys of each curve, by its `type`; a curve of no known type is checked against all of them. */
const curveChecks: Readonly<Record<string, OptionCheck>> = {
  fixed: strictOptions('backoff', { known: ['type', 'ms'], hints: CURVE_HINTS, bounds: { ms: 'span' } }),
  exponential: strictOptions('backoff', { known: ['type', 'base', 'cap'], hints: CURVE_HINTS, bounds: { base: 'span', cap: 'span' } }),
  jitter: strictOptions('backoff', { known: ['type', 'inner'], hints: CURVE_HINTS }),
};
const anyCurve = strictOptions('backoff', { known: ['type', 'ms', 'base', 'cap', 'inner'], hints: CURVE_HINTS, bounds: { ms: 'span', base: 'span', cap: 'span' } });

/**
 * Refuses a key a backoff curve object does not have (BullMQ's `{ type, delay }` among them), inner
 * curves included, with `UnknownOptionError`. Anything but an object (a backoff function on a
 * worker) is left to its own check.
 */
export function checkCurveKeys(policy: unknown): void {
  if (typeof policy !== 'object' || policy === null) return;
  const type = (policy as { type?: unknown }).type;
  const check = typeof type === 'string' && Object.hasOwn(curveChecks, type) ? curveChecks[type] : anyCurve;
  check?.(policy);
  const inner = (policy as { inner?: unknown }).inner;
  if (inner !== undefined) checkCurveKeys(inner);
}
