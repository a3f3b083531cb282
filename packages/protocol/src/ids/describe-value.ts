/**
 * A printable stand-in for a value that failed a string check. Error classes keep the offending value
 * as a string, and `String(x)` can itself throw (a null-prototype object has no `toString`), which
 * would hide the real refusal behind a `TypeError`.
 */
export function describeValue(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
    case 'bigint':
    case 'boolean':
    case 'undefined':
      return String(value);
    case 'symbol':
      return value.toString();
    default:
      return value === null ? 'null' : Object.prototype.toString.call(value);
  }
}
