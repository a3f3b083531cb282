import { isBrandedId, isDedupId } from '@echo/protocol/extend';
import { LIST_STATES, type JobRecord, type Queue } from '@echo/queue';
import { jobView, listedView, type JobView } from './views.js';

/** How a search result matched. */
export type SearchMatch = 'id' | 'key' | 'name';

/** A job found by {@link searchJobs}, with how it matched. */
export interface SearchHit {
  /** What matched: the id, the business key (or dedup id), or the name. */
  readonly match: SearchMatch;
  /** The job found. */
  readonly job: JobView;
}

/** What a search found, and how much of the queue a by-name search looked through. */
export interface SearchResult {
  /** The text searched for, trimmed. */
  readonly query: string;
  /** What was found, at most 50, by id first, then key, then name. */
  readonly hits: SearchHit[];
  /** Jobs a by-name search read, per state, at most {@link NAME_SCAN} each. */
  readonly scanned: number;
  /** True when a state held more jobs than the by-name search reads (so a match may be missed). */
  readonly truncated: boolean;
}

/** Jobs a by-name search reads from each state, newest pages first as `listJobs` orders them. */
export const NAME_SCAN = 1000;
const PAGE = 500;

/**
 * Finds jobs of one queue by id (exact), by business key or dedup id (`getJobByKey`), and by name
 * (exact, over at most {@link NAME_SCAN} jobs of each state). Names live in the rows, which no index
 * covers, so the by-name search is a bounded read, and says when it stopped short.
 */
export async function searchJobs(queue: Queue<string>, query: string, limit = 50): Promise<SearchResult> {
  const q = query.trim();
  const hits: SearchHit[] = [];
  const seen = new Set<string>();
  const add = (match: SearchMatch, job: JobView): void => {
    if (seen.has(job.id) || hits.length >= limit) return;
    seen.add(job.id);
    hits.push({ match, job });
  };
  if (q === '') return { query: q, hits, scanned: 0, truncated: false };
  if (isBrandedId(q)) {
    const [position, record] = await Promise.all([queue.getState(q), queue.getJob(q)]);
    if (record !== undefined && position !== 'absent') add('id', jobView(q, position, record, record.rawPayload, null));
  }
  if (isDedupId(q)) {
    const record: JobRecord<string> | undefined = await queue.getJobByKey(q);
    if (record !== undefined) add('key', jobView(record.id, await queue.getState(record.id), record, record.rawPayload, null));
  }
  let scanned = 0;
  let truncated = false;
  for (const state of LIST_STATES) {
    for (let offset = 0; offset < NAME_SCAN && hits.length < limit; offset += PAGE) {
      const page = await queue.listJobs(state, { offset, limit: Math.min(PAGE, NAME_SCAN - offset) });
      scanned += page.jobs.length;
      for (const job of page.jobs) if (job.record?.name === q) add('name', listedView(state, job));
      if (offset + page.jobs.length >= page.total) break;
      if (offset + PAGE >= NAME_SCAN) truncated = true;
    }
  }
  return { query: q, hits, scanned, truncated };
}
