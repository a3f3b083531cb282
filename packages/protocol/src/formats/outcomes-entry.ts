import { MalformedReplyError } from '../errors/wire.js';

/** One completion an outcomes entry records. */
export interface OutcomeRecord {
  /** The completed job's id. */
  readonly job: string;
  /**
   * The attempt (fencing token) that completed it; `undefined` only in an entry written before
   * tokens were recorded (the one-job `job <id> [result <r>]` shape).
   */
  readonly token: number | undefined;
  /** The verdict: the stream records completions only. */
  readonly verdict: 'completed';
  /** The handler's result as stored (encoded); `undefined` when it gave none. */
  readonly result: string | undefined;
}

/** An entry of a queue's recent completions, `emq:{q}:outcomes` [TS]. */
export interface OutcomesEntry {
  /** The entry's stream id (server-minted). */
  readonly entry: string;
  /** When the completing call ran, Unix ms (server clock): the entry id's time part. */
  readonly at: number;
  /** The completions of that call, in the order it settled them. */
  readonly outcomes: readonly OutcomeRecord[];
}

/**
 * Reads one entry of `emq:{q}:outcomes` [TS], as `lib/retain.lua` writes it: one entry per completing
 * call, `jobs <n>` then `<id> <token>` or `<id> <token>:<result>` per job. Read by position, so a job
 * id that looks like a head field cannot shadow it. The older one-job shape `job <id> [result <r>]`
 * is read too (its token unknown), so a rolling upgrade's entries stay readable.
 *
 * @throws MalformedReplyError when the entry is neither shape.
 */
export function parseOutcomesEntry(entry: string, fields: readonly string[]): OutcomesEntry {
  const at = Number(entry.slice(0, entry.indexOf('-')));
  const bad = (): MalformedReplyError => new MalformedReplyError('XRANGE', [entry, fields], 'not an outcomes entry');
  if (fields[0] === 'job' && fields.length >= 2) {
    const result = fields[2] === 'result' ? fields[3] : undefined;
    return { entry, at, outcomes: [{ job: fields[1] ?? '', token: undefined, verdict: 'completed', result }] };
  }
  const n = Number(fields[1]);
  if (fields[0] !== 'jobs' || !Number.isSafeInteger(n) || fields.length !== 2 + n * 2) throw bad();
  const outcomes: OutcomeRecord[] = [];
  for (let i = 2; i < fields.length; i += 2) {
    const value = fields[i + 1] ?? '';
    const colon = value.indexOf(':');
    const token = Number(colon < 0 ? value : value.slice(0, colon));
    if (!Number.isSafeInteger(token)) throw bad();
    outcomes.push({ job: fields[i] ?? '', token, verdict: 'completed', result: colon < 0 ? undefined : value.slice(colon + 1) });
  }
  return { entry, at, outcomes };
}
