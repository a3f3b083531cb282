/**
 * A token on a queue's wake list, as the scripts push it: a plain wake-up (`1`, after an admission
 * or a promote), or [TS] a due hint `d:<ms>` (`core.due_hint`: the schedule's head falls due in that
 * many ms; it names no claimable job).
 */
export type WakeToken = { readonly kind: 'wake' } | { readonly kind: 'due'; readonly inMs: number };

const DUE = /^d:(\d+)$/;
const WAKE: WakeToken = { kind: 'wake' };

/** Reads one wake-list token; anything that is not a due hint is a plain wake-up. */
export function parseWakeToken(token: string): WakeToken {
  const match = DUE.exec(token);
  return match === null ? WAKE : { kind: 'due', inMs: Number(match[1]) };
}
