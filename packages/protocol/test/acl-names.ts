/** Commands whose ACL name carries their first argument (`xinfo|stream`, `client|id`). */
const CONTAINERS = new Set(['XINFO', 'XGROUP', 'CLIENT', 'SCRIPT', 'CONFIG', 'OBJECT', 'MEMORY']);

/** What a built read or write sends, in ACL spelling. */
export function aclName(r: { readonly command: string; readonly args: readonly unknown[] }): string {
  const name = r.command.toUpperCase();
  return (CONTAINERS.has(name) ? `${name}|${String(r.args[0])}` : name).toLowerCase();
}
