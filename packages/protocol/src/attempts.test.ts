import { describe, expect, it } from 'vitest';
import { parseAttempts } from './attempts.js';

describe('parseAttempts', () => {
  it('pairs starts and ends by token, keeps tabs inside an error, computes durations', () => {
    expect(parseAttempts(['1\ts\t1000', '1\te\t1250\tretried\tboom\twith tab', '2\ts\t2000', '2\te\t2100\tcompleted\t', '3\ts\t3000'])).toEqual([
      { attempt: 1, startedAt: 1000, endedAt: 1250, outcome: 'retried', error: 'boom\twith tab', durationMs: 250 },
      { attempt: 2, startedAt: 2000, endedAt: 2100, outcome: 'completed', error: null, durationMs: 100 },
      { attempt: 3, startedAt: 3000, endedAt: null, outcome: null, error: null, durationMs: null },
    ]);
  });

  it('keeps an end whose start was trimmed, an unended start, and skips records it does not know', () => {
    expect(parseAttempts(['4\te\t500\tstalled\tlease lapsed', '5\ts\t600', '6\ts\t700', '6\te\t900\tdelayed\t', 'x\ts\t1', '7\tq\t1', '7\te\t1\tweird\t'])).toEqual([
      { attempt: 4, startedAt: null, endedAt: 500, outcome: 'stalled', error: 'lease lapsed', durationMs: null },
      { attempt: 5, startedAt: 600, endedAt: null, outcome: null, error: null, durationMs: null },
      { attempt: 6, startedAt: 700, endedAt: 900, outcome: 'delayed', error: null, durationMs: 200 },
    ]);
  });
});
