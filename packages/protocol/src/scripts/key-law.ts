import type { Script } from './script.js';

/** One breach of the declared-keys law found by reading a script's text. */
export interface KeyLawViolation {
  readonly script: string;
  readonly line: number;
  readonly message: string;
}

/** How many leading arguments of each command are keys (mirrors lua/strict/prelude.lua). */
const KEY_ARGS: Readonly<Record<string, number | 'all'>> = {
  time: 0, publish: 1, get: 1, set: 1, setnx: 1, psetex: 1, incr: 1, incrby: 1, decr: 1, decrby: 1,
  getdel: 1, pexpire: 1, expire: 1, pttl: 1, ttl: 1, type: 1, strlen: 1, hget: 1, hset: 1, hsetnx: 1,
  hdel: 1, hincrby: 1, hmget: 1, hgetall: 1, hexists: 1, hkeys: 1, hlen: 1, hvals: 1, zadd: 1, zrem: 1,
  zcard: 1, zscore: 1, zrange: 1, zrangebyscore: 1, zrangebylex: 1, zrevrangebylex: 1, zpopmin: 1,
  zrank: 1, zcount: 1, zmscore: 1, lpush: 1, rpush: 1, lpop: 1, rpop: 1, lrem: 1, lpos: 1, lrange: 1,
  ltrim: 1, llen: 1, lindex: 1, sadd: 1, srem: 1, sismember: 1, smembers: 1, scard: 1, xadd: 1,
  xrange: 1, xtrim: 1, xlen: 1, lmove: 2, rpoplpush: 2, del: 'all', exists: 'all', unlink: 'all',
};

/** Parameter names that, by convention, carry a key into a local function. */
const KEY_PARAMS = new Set(['set', 'lane', 'key', 'record', 'root']);
const KEY_CALL = /^(jkey|gkey)\(/;
const KEY_INDEX = /^KEYS\[[^\]]+\]$/;
const LB_FIELD = /^lb\.(gactive|glimit|ring|wake|paused)$/;

/**
 * Reads a script's body (its own file, after the vetted libraries) and checks the law of
 * protocol.md §6.1 statically:
 * - every key argument of every `redis.call` is a declared `KEYS[i]`, a name bound to one, a lane
 *   bookkeeping field, or a `jkey`/`gkey` call (the only builders, which check the id with `vid`);
 * - no declared key is ever concatenated with anything (only the vetted builders concatenate);
 * - no command outside the known table is used, so every key position is accounted for.
 * The strict runtime mode proves the same property on every call our tests make.
 */
export function checkKeyLaw(script: Script, body: string): KeyLawViolation[] {
  const violations: KeyLawViolation[] = [];
  const keyVars = new Set<string>(KEY_PARAMS);
  const lines = body.split('\n');
  const flag = (line: number, message: string): void => {
    violations.push({ script: script.name, line, message });
  };

  lines.forEach((text, i) => {
    const code = stripComment(text);
    const bound = /local\s+(\w+)\s*=\s*(KEYS\[[^\]]+\]|jkey\(|gkey\()/.exec(code);
    if (bound?.[1]) keyVars.add(bound[1]);
    const loop = /for\s+\w+\s*,\s*(\w+)\s+in\s+ipairs\(\s*(KEYS\s*\)|\{\s*KEYS)/.exec(code);
    if (loop?.[1]) keyVars.add(loop[1]);
    for (const concat of code.matchAll(/(\S+)\s*\.\.|\.\.\s*(\S+)/g)) {
      const operand = (concat[1] ?? concat[2] ?? '').replace(/[(),]/g, '');
      if (operand.startsWith('KEYS[') || (keyVars.has(operand) && !KEY_PARAMS.has(operand))) {
        flag(i + 1, `a declared key is concatenated: ${code.trim()}`);
      }
    }
  });

  for (const call of findCalls(body)) {
    const command = unquote(call.args[0] ?? '').toLowerCase();
    const arity = KEY_ARGS[command];
    if (arity === undefined) {
      flag(call.line, `command ${command || '(computed)'} is not in the key-position table`);
      continue;
    }
    const keyArgs = arity === 'all' ? call.args.slice(1) : call.args.slice(1, 1 + arity);
    for (const arg of keyArgs) {
      const expr = arg.trim();
      const ok = KEY_INDEX.test(expr) || KEY_CALL.test(expr) || LB_FIELD.test(expr) || keyVars.has(expr);
      if (!ok) flag(call.line, `key argument ${expr} of ${command} is neither declared nor rooted`);
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

/** Finds `redis.call(...)`/`redis.pcall(...)` and splits their arguments at top-level commas. */
function findCalls(source: string): Call[] {
  const calls: Call[] = [];
  const pattern = /redis\.p?call\(/g;
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
