import type { QueueKeys } from '../../keys/queue-keys.js';
import { read, type Read } from '../read.js';
import { entryFields, parseStreamEntries } from '../stream-entries.js';

/** One recent completion [TS], as the completing scripts append it to `outcomes`. */
export interface Outcome {
  /** The completed job's id. */
  readonly job: string;
  /** The handler's result as stored, when it gave one. */
  readonly result: string | undefined;
}

/**
 * `XREVRANGE outcomes + -`: the queue's recent completions [TS] (about the last 1000, kept while
 * completed rows are not), newest first. An entry without a `job` field is not one of ours and is
 * left out.
 */
export function outcomes(input: { readonly keys: QueueKeys }): Read<Outcome[]> {
  return read('XREVRANGE', [input.keys.outcomes, '+', '-'], (reply) => {
    const out: Outcome[] = [];
    for (const entry of parseStreamEntries(reply, 'XREVRANGE')) {
      const fields = entryFields(entry.fields);
      if (fields.job !== undefined) out.push({ job: fields.job, result: fields.result });
    }
    return out;
  });
}
