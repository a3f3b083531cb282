import { ConnectionLostError } from '@echo/protocol/queue';
import { localNow } from '../core/clock.js';

/** First pause between resends of a call that reached no primary; doubles up to the cap. */
const RESEND_FIRST_MS = 50;
const RESEND_CAP_MS = 1_000;

/**
 * Did the call fail to reach a primary: a dropped socket ({@link ConnectionLostError}) or a cluster
 * slot whose master is failing over (`ClusterUnavailableError`, one of them)? Such a call may or may
 * not have run; a fenced settlement or a read may be sent again.
 */
export function unreached(error: unknown): boolean {
  return error instanceof ConnectionLostError;
}

/**
 * Sends `send` again while it fails without reaching a primary, backing off, until `deadline` (a
 * local time): a cluster failover lasts seconds, so one resend would fall inside it. Answers the
 * result or throws the last error (`first` when nothing was sent).
 */
export async function resendUntil<R>(deadline: number, first: unknown, send: () => Promise<R>): Promise<R> {
  let last = first;
  for (let pause = 0; unreached(last) && localNow() < deadline; pause = Math.min(RESEND_CAP_MS, Math.max(RESEND_FIRST_MS, pause * 2))) {
    if (pause > 0) await new Promise((resolve) => setTimeout(resolve, pause));
    try {
      return await send();
    } catch (again) {
      last = again;
    }
  }
  throw last;
}
