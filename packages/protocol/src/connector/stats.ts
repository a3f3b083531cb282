/** Counters a caller can read to see what the connector did on the wire (protocol.md §12). */
export interface ConnectionStats {
  /** Single calls sent (scripts and plain commands). */
  commands: number;
  /** Pipelines sent; their members are counted in `commands` too. */
  pipelines: number;
  /** EVALSHA calls sent, including resends after NOSCRIPT. */
  evalshaCalls: number;
  /** `SCRIPT LOAD`s after a NOSCRIPT reply. */
  scriptLoads: number;
  /** Successful reconnects (each one re-fenced). */
  reconnects: number;
  /** Fence checks completed. */
  fences: number;
  /** Error replies and transport faults seen. */
  wireErrors: number;
  /**
   * When the connection last became ready (fenced); 0 before it first did. A reply read after a
   * reconnect answers a call sent no earlier than this. Read on the process's monotonic clock
   * (`performance.timeOrigin + performance.now()`: Unix ms at process start, never stepped), so a
   * lease bound built on it survives a wall-clock step; it drifts from `Date.now()` once the wall
   * clock is stepped.
   */
  readyAt: number;
}

/** A fresh counter set. */
export function emptyStats(): ConnectionStats {
  return { commands: 0, pipelines: 0, evalshaCalls: 0, scriptLoads: 0, reconnects: 0, fences: 0, wireErrors: 0, readyAt: 0 };
}
