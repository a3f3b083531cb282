import type { JobProgress } from './job.js';

/** The first line of a failure's text (its message, without the stack). */
export function firstLine(text: string): string {
  const end = text.indexOf('\n');
  return end === -1 ? text : text.slice(0, end);
}

/** A stored progress read back: a number, a JSON value (an object, a boolean), else the text. */
export function parseProgress(raw: string): JobProgress {
  if (raw === '') return 0;
  const asNumber = Number(raw);
  if (Number.isFinite(asNumber)) return asNumber;
  try {
    return JSON.parse(raw) as JobProgress;
  } catch {
    return raw;
  }
}
