import { ValueTooLargeError } from '@echo/protocol/bus';

/**
 * Checks one entry's flattened `field value …` list against its byte cap (UTF-8, names and values
 * together), before anything is sent. Cheap on the common path: `n` UTF-16 units are at most `3n`
 * bytes, so the byte count runs only for entries near the cap.
 *
 * @throws ValueTooLargeError over the cap.
 */
export function checkEntrySize(flat: readonly string[], limit: number, what = 'stream entry'): void {
  if (limit === Number.POSITIVE_INFINITY) return;
  let units = 0;
  for (const part of flat) units += part.length;
  if (units * 3 <= limit) return;
  let bytes = 0;
  for (const part of flat) bytes += Buffer.byteLength(part, 'utf8');
  if (bytes > limit) throw new ValueTooLargeError(what, bytes, limit);
}

/**
 * {@link checkEntrySize} for record `index` of a batch, laid out inside the batch's argument list at
 * `items[from..to)`, whose UTF-16 length the caller already summed (`units`). The byte count runs
 * only near the cap.
 *
 * @throws ValueTooLargeError over the cap.
 */
export function checkEntryItems(items: readonly unknown[], from: number, to: number, units: number, limit: number, index: number): void {
  if (units * 3 <= limit) return;
  let bytes = 0;
  for (let i = from; i < to; i++) bytes += Buffer.byteLength(items[i] as string, 'utf8');
  if (bytes > limit) throw new ValueTooLargeError(`stream entry records[${index}]`, bytes, limit);
}
