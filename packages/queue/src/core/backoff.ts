import { checkCurve, type Backoff } from '@echo/protocol/queue';

// The curves live in the protocol, shared with the bus's redeliveries; the queue keeps its names.
export { backoffDelay, checkCurve, checkCurveKeys, exponential, fixed, jitter, type Backoff } from '@echo/protocol/queue';

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

