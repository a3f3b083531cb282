import type { ProcessedEntry, TraceContext } from '@echo/protocol/bus';
import type { ConsumerLabels } from '../telemetry/hooks.js';
import { tracedProcess } from '../telemetry/trace.js';
import type { GroupEntry } from './options.js';
import type { CallWrap } from './runs.js';

/** An entry as the process channel describes it. */
function processedEntry(entry: GroupEntry, trace: TraceContext | undefined): ProcessedEntry {
  return trace === undefined ? { id: entry.id, attempts: entry.attempts } : { id: entry.id, attempts: entry.attempts, trace };
}

/**
 * The wrap that runs each handler call of a read inside `emq.stream.process`, describing the
 * entries at its slots with the producers' contexts read from them (`contexts`, by slot). It lives
 * with the consumer, whose entries and calls it describes; the channel itself is telemetry's.
 */
export function traceWrap(who: ConsumerLabels, entries: readonly (GroupEntry | undefined)[], contexts: readonly (TraceContext | undefined)[]): CallWrap {
  return (slots, batch, run) => tracedProcess(who, batch, slots.map((i) => processedEntry(entries[i] as GroupEntry, contexts[i])), run);
}
