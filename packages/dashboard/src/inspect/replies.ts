/**
 * Server replies arrive as flat field/value arrays (RESP2) or maps (RESP3), depending on the
 * negotiated protocol; these read either shape without stringifying nulls away.
 */
export function fieldMap(reply: unknown): Map<string, unknown> {
  if (reply instanceof Map) return new Map([...reply].map(([k, v]) => [String(k), v] as const));
  if (Array.isArray(reply)) {
    const out = new Map<string, unknown>();
    for (let i = 0; i + 1 < reply.length; i += 2) out.set(String(reply[i]), reply[i + 1]);
    return out;
  }
  if (reply !== null && typeof reply === 'object') return new Map(Object.entries(reply));
  return new Map();
}

/** A numeric field, or `undefined` when it is absent or nil (XINFO's `lag` is nil when unknown). */
export function numberField(fields: Map<string, unknown>, name: string): number | undefined {
  const value = fields.get(name);
  if (value === null || value === undefined) return undefined;
  const n = Number(value);
  return Number.isFinite(n) ? n : undefined;
}

/** A text field, or `undefined` when absent or nil. */
export function textField(fields: Map<string, unknown>, name: string): string | undefined {
  const value = fields.get(name);
  if (value === null || value === undefined) return undefined;
  if (Buffer.isBuffer(value)) return value.toString();
  return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
}
