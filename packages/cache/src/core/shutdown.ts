/** What a face's tiers hold that its close releases. */
export interface Closable {
  stopped: boolean;
  readonly l1: { clear(): number };
}

/** How one face closes: where it is registered, its sweeper, its coherence source and its own last step. */
export interface Shutdown {
  /** Takes the face out of its cache's directory, so the name opens afresh. */
  leave(): void;
  readonly sweeper: ReturnType<typeof setInterval> | undefined;
  /** Wakes whatever of the face's own still waits (a namespace's lease waiters). */
  release?(): void;
  /** The coherence source (a namespace's log reader, a table's lane), stopped last. */
  readonly source: { stop(): Promise<void> } | null;
}

/**
 * The close both faces share: once, the face leaves the directory at once, its sweeper stops, L1 is
 * emptied, what waits is released, then its coherence source stops. Fills already running still
 * answer their waiters. Idempotent.
 */
export async function closeFace(tiers: Closable, shutdown: Shutdown): Promise<void> {
  if (tiers.stopped) return;
  tiers.stopped = true;
  shutdown.leave();
  clearInterval(shutdown.sweeper);
  tiers.l1.clear();
  shutdown.release?.();
  await shutdown.source?.stop();
}
