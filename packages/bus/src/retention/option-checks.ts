import { strictOptions } from '@echo/protocol/bus';

const TRIM_HINTS = {
  MAXLEN: 'MAXLEN is maxlen here',
  maxLen: 'the newest entries to keep is maxlen here',
  MINID: 'MINID is minid here (an instant: Date or Unix ms)',
  minId: 'the oldest instant to keep is minid here',
  exact: 'exact trimming is approx: false here',
  LIMIT: "XTRIM's LIMIT is not used; approx: true trims whole nodes only",
  limit: "XTRIM's LIMIT is not used; approx: true trims whole nodes only",
};

/** `stream.trim(window)` and a retention window. */
export const checkTrimWindow = strictOptions('trim window', { known: ['maxlen', 'minid', 'approx'], hints: TRIM_HINTS });

/** `RetentionDriver` options. */
export const checkRetentionOptions = strictOptions('retention options', {
  known: ['intervalMs', 'now', 'onError'],
  hints: { interval: 'the tick period is intervalMs here (milliseconds)' },
  bounds: { intervalMs: 'timer' },
});

/** One target of the functional `RetentionDriver`. */
export const checkRetentionTarget = strictOptions('retention target', {
  known: ['queue', 'name', 'window'],
  hints: { stream: 'the stream is name here', maxlen: 'the window goes in window: { maxlen }', minid: 'the window goes in window: { minid }' },
});

/** One target of `bus.retention(...)`: the bus places it. */
export const checkBusRetentionTarget = strictOptions('bus retention target', {
  known: ['name', 'window'],
  hints: {
    queue: "a bus retention target is the bus's own stream: { name, window }",
    stream: 'the stream is name here',
    maxlen: 'the window goes in window: { maxlen }',
    minid: 'the window goes in window: { minid }',
  },
});

