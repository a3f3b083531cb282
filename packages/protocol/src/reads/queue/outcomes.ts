import { parseOutcomesEntry, type OutcomeRecord } from '../../formats/outcomes-entry.js';
import type { QueueKeys } from '../../keys/queue-keys.js';
import { read, type Read } from '../read.js';
import { parseStreamEntries } from '../stream-entries.js';

/**
 * `XREVRANGE outcomes + -`: the queue's recent completions [TS] (about the last 1000, kept while
 * completed rows are not), newest call first, each call's jobs in the order it completed them.
 * Every entry goes through the one outcomes parser ({@link parseOutcomesEntry}).
 */
export function outcomes(input: { readonly keys: QueueKeys }): Read<OutcomeRecord[]> {
  return read('XREVRANGE', [input.keys.outcomes, '+', '-'], (reply) => {
    const out: OutcomeRecord[] = [];
    for (const entry of parseStreamEntries(reply, 'XREVRANGE')) if (entry.fields !== null) out.push(...parseOutcomesEntry(entry.id, entry.fields).outcomes);
    return out;
  });
}
