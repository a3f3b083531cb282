import type { Script } from './script.js';
import { keyLocal, namedKeys } from './source.js';

/** One breach of the declared-keys law found by reading a script's text. */
export interface KeyLawViolation {
  readonly script: string;
  readonly line: number;
  readonly message: string;
}

/**
 * How many leading arguments of each command are keys: a count, or `'all'`. The one table of key
 * positions: the static reader checks against it and the strict twin's guard is written from it.
 */
export const KEY_ARGS: Readonly<Record<string, number | 'all'>> = {
  time: 0, publish: 1, get: 1, set: 1, setnx: 1, psetex: 1, incr: 1, incrby: 1, decr: 1, decrby: 1,
  getdel: 1, pexpire: 1, expire: 1, pttl: 1, ttl: 1, type: 1, strlen: 1, hget: 1, hset: 1, hsetnx: 1,
  hdel: 1, hincrby: 1, hmget: 1, hgetall: 1, hexists: 1, hkeys: 1, hlen: 1, hvals: 1, zadd: 1, zrem: 1,
  zcard: 1, zscore: 1, zrange: 1, zrangebyscore: 1, zrangebylex: 1, zrevrangebylex: 1, zremrangebylex: 1, zpopmin: 1,
  zrank: 1, zcount: 1, zmscore: 1, lpush: 1, rpush: 1, lpop: 1, rpop: 1, lrem: 1, lpos: 1, lrange: 1,
  ltrim: 1, llen: 1, lindex: 1, sadd: 1, srem: 1, sismember: 1, smembers: 1, scard: 1, spop: 1, xadd: 1,
  xrange: 1, xtrim: 1, xlen: 1, xack: 1, xautoclaim: 1, xpending: 1, xclaim: 1, xdel: 1, persist: 1, lmove: 2, rpoplpush: 2, del: 'all', exists: 'all', unlink: 'all',
};

/** Parameter names that, by convention, carry a key into a local function (checked at each call). */
const KEY_PARAMS = new Set(['set', 'lane', 'key', 'record', 'root']);
const BUILDERS: Readonly<Record<string, string>> = { jkey: ':job:', gkey: ':g:', dkey: ':de:' };
const BUILDER_CALL = /^(jkey|gkey|dkey)\(/;
const KEY_INDEX = /^KEYS\[[^\]]+\]$/;
const LB_FIELD = /^lb\.(gactive|glimit|ring|wake|paused)$/;
/** An assignment statement's target (group 1): at a line's start or after a keyword, never a table field. */
const STATEMENT = String.raw`(?:^|\bthen\b|\bdo\b|\belse\b|;)\s*(?:local\s+)?(\w+)\s*=(?!=)\s*`;
const LB_SLOT = String.raw`\w+\s*=\s*(?:KEYS\[\d+\]|k_\w+)`;
/** `lane_keys(k_gactive, k_glimit, k_ring, k_wake, k_paused)`: the lanes library's table of the five declared names. */
const LANE_KEYS = /^lane_keys\(\s*k_\w+(\s*,\s*k_\w+){4}\s*\)/;
const LB_TABLE = new RegExp(String.raw`^\{\s*(${LB_SLOT}\s*,\s*)*${LB_SLOT}\s*,?\s*\}$`);

/**
 * Reads a script's body (its own file, after the vetted libraries) and checks the law of
 * protocol.md §6.1 statically. A key expression is a declared `KEYS[i]` (a literal i within the
 * header), a name bound to one (the header's own names, `k_row`, are bound to theirs), a lane bookkeeping field, or a `jkey`/`gkey` call (the only
 * builders, which check the id with `vid` at run time); then:
 * - every key argument of every `redis.call` is a key expression;
 * - every builder's root is a declared root: a `KEYS[n]` (or a name bound to one) whose header
 *   shape ends `:job:` for `jkey`, `:g:` for `gkey`;
 * - a name that holds a key is never rebound to anything else, and a local function whose parameter
 *   carries a key (by name: `set`, `lane`, `key`, `record`, `root`) gets a key expression there at
 *   every call;
 * - no declared key is ever concatenated with anything (only the builders concatenate);
 * - no command outside {@link KEY_ARGS} is used, so every key position is accounted for.
 * The strict twin reads the same law at run time; a table-driven test holds the two to one verdict.
 */
export function checkKeyLaw(script: Script, body: string): KeyLawViolation[] {
  const violations: KeyLawViolation[] = [];
  const keyVars = new Set<string>(KEY_PARAMS);
  /** Names bound to a fixed `KEYS[n]`, so a builder's root can be traced to its header slot. */
  const boundIndex = new Map<string, number>();
  // The names the composed source binds for the body (source.ts keyPrelude) are declared keys.
  for (const { name, index } of namedKeys(script.header)) {
    keyVars.add(keyLocal(name));
    boundIndex.set(keyLocal(name), index);
  }
  const lines = body.split('\n');
  const code = lines.map(stripComment);
  const flag = (line: number, message: string): void => {
    violations.push({ script: script.name, line, message });
  };
  // A literal index must name a declared slot: past the header, KEYS[n] is nil at run time.
  const declared = (expr: string): boolean => {
    if (!KEY_INDEX.test(expr)) return false;
    const n = /^KEYS\[(\d+)\]$/.exec(expr)?.[1];
    return n === undefined || script.header.restKeys !== undefined || (Number(n) >= 1 && Number(n) <= script.header.keys.length);
  };
  const isKey = (expr: string): boolean =>
    declared(expr) || BUILDER_CALL.test(expr) || LB_FIELD.test(expr) || keyVars.has(expr);

  code.forEach((text) => {
    const bound = new RegExp(`${STATEMENT}(KEYS\\[[^\\]]+\\]|k_\\w+\\b(?!\\s*\\.\\.)|jkey\\(|gkey\\(|dkey\\()`).exec(text);
    if (bound?.[1] && (!bound[2]?.startsWith('k_') || keyVars.has(bound[2]))) {
      keyVars.add(bound[1]);
      const index = /^KEYS\[(\d+)\]$/.exec(bound[2] ?? '')?.[1] ?? boundIndex.get(bound[2] ?? '');
      if (index !== undefined) boundIndex.set(bound[1], Number(index));
    }
    const loop = /for\s+\w+\s*,\s*(\w+)\s+in\s+ipairs\(\s*(KEYS\s*\)|\{\s*KEYS)/.exec(text);
    if (loop?.[1]) keyVars.add(loop[1]);
  });

  code.forEach((text, i) => {
    for (const concat of text.matchAll(/(\S+)\s*\.\.|\.\.\s*(\S+)/g)) {
      const operand = (concat[1] ?? concat[2] ?? '').replace(/[(),]/g, '');
      if (operand.startsWith('KEYS[') || (keyVars.has(operand) && !KEY_PARAMS.has(operand))) {
        flag(i + 1, `a declared key is concatenated: ${text.trim()}`);
      }
    }
    const assign = new RegExp(`${STATEMENT}(.*)$`).exec(text);
    if (assign) {
      const name = assign[1] ?? '';
      const value = (assign[2] ?? '').trim();
      if (name === 'lb') {
        const named = [...value.matchAll(/\bk_\w+/g)].every((m) => keyVars.has(m[0]));
        if (!((LANE_KEYS.test(value) || LB_TABLE.test(value)) && named)) flag(i + 1, `lb is bound to ${value}, not the declared lane keys`);
      } else if (keyVars.has(name) && !isKey(value) && value !== 'nil') {
        flag(i + 1, `${name} holds a key and is bound to ${value}, which is neither declared nor rooted`);
      }
    }
  });

  for (const fn of body.matchAll(/local\s+function\s+(\w+)\s*\(([^)]*)\)/g)) {
    const params = (fn[2] ?? '').split(',').map((p) => p.trim());
    const keyAt = params.flatMap((p, j) => (KEY_PARAMS.has(p) ? [j] : []));
    if (keyAt.length === 0) continue;
    for (const call of findCalls(body, new RegExp(`(?<!function\\s+)(?<![\\w.:])${fn[1] ?? ''}\\(`, 'g'))) {
      for (const j of keyAt) {
        const arg = call.args[j] ?? 'nil';
        if (!isKey(arg)) flag(call.line, `key parameter ${params[j] ?? ''} of ${fn[1] ?? ''} gets ${arg}, which is neither declared nor rooted`);
      }
    }
  }

  for (const [builder, tail] of Object.entries(BUILDERS)) {
    for (const call of findCalls(body, new RegExp(`(?<!function\\s+)(?<![\\w.:])${builder}\\(`, 'g'))) {
      const root = call.args[0] ?? '';
      const n = Number(/^KEYS\[(\d+)\]$/.exec(root)?.[1] ?? boundIndex.get(root) ?? Number.NaN);
      const shape = script.header.keys[n - 1]?.doc.split(/\s+/)[0] ?? '';
      if (!shape.endsWith(tail)) flag(call.line, `${builder} root ${root} is not a declared root ending ${tail}`);
    }
  }

  for (const call of findCalls(body, /redis\.p?call\(/g)) {
    const command = unquote(call.args[0] ?? '').toLowerCase();
    const arity = KEY_ARGS[command];
    if (arity === undefined) {
      flag(call.line, `command ${command || '(computed)'} is not in the key-position table`);
      continue;
    }
    const keyArgs = arity === 'all' ? call.args.slice(1) : call.args.slice(1, 1 + arity);
    for (const arg of keyArgs) {
      const expr = arg.trim();
      if (!isKey(expr)) flag(call.line, `key argument ${expr} of ${command} is neither declared nor rooted`);
    }
  }
  return violations;
}

function stripComment(line: string): string {
  const at = line.indexOf('--');
  return at === -1 ? line : line.slice(0, at);
}

function unquote(text: string): string {
  return text.trim().replace(/^'(.*)'$/, '$1').replace(/^"(.*)"$/, '$1');
}

interface Call {
  readonly line: number;
  readonly args: string[];
}

/** Finds the calls `pattern` opens (it ends at the open paren) and splits their arguments at top-level commas. */
function findCalls(source: string, pattern: RegExp): Call[] {
  const calls: Call[] = [];
  for (let match = pattern.exec(source); match; match = pattern.exec(source)) {
    const line = source.slice(0, match.index).split('\n').length;
    const args: string[] = [];
    let depth = 0;
    let quote: string | undefined;
    let current = '';
    let i = match.index + match[0].length;
    for (; i < source.length; i++) {
      const ch = source[i] as string;
      if (quote) {
        current += ch;
        if (ch === '\\') current += source[++i] ?? '';
        else if (ch === quote) quote = undefined;
        continue;
      }
      if (ch === "'" || ch === '"') quote = ch;
      if (ch === '(' || ch === '{' || ch === '[') depth++;
      if (ch === ')' || ch === '}' || ch === ']') {
        if (depth === 0) break;
        depth--;
      }
      if (ch === ',' && depth === 0) {
        args.push(current);
        current = '';
        continue;
      }
      current += ch;
    }
    args.push(current);
    calls.push({ line, args: args.map((a) => a.trim()) });
  }
  return calls;
}
