import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GENERATED_FILE, REGENERATE, reachableCommands, renderLuaModule, serverCommands } from '../scripts/gen-lua.js';
import { JOB_SUBS } from '../src/keys/registry.js';
import { LUA_LIBS, LUA_PILLAR_SCRIPTS, LUA_SCRIPT_COMMANDS, LUA_SCRIPT_NAMES, LUA_SCRIPTS, LUA_STRICT } from '../src/scripts/generated/lua-sources.js';
import { busAclRules, cacheAclRules, defineScript, KEY_ARGS, queueAclRules, scripts, SCRIPT_NAMES, sha1, strictVariant } from './support.js';

describe('the Lua compiled into the build', () => {
  it('is current with lua/ (regenerated in memory and compared with the committed module)', () => {
    const committed = readFileSync(GENERATED_FILE, 'utf8');
    // A boolean with a message, not a string diff: the module is long and the fix is one command.
    expect(committed === renderLuaModule(), `src/scripts/generated/lua-sources.ts is stale: run \`${REGENERATE}\``).toBe(true);
  });

  it('holds exactly the catalogued transitions', () => {
    expect(Object.keys(LUA_SCRIPTS).sort()).toEqual([...SCRIPT_NAMES].sort());
  });

  it.each(SCRIPT_NAMES.map((n) => [n]))('%s: the generator SHA names the source the catalog sends', (name) => {
    const script = scripts()[name];
    expect(script.sha).toBe(LUA_SCRIPTS[name].sha);
    expect(sha1(script.source)).toBe(script.sha);
    // The catalog and the extension path compose the same bytes from the same text.
    expect(defineScript({ source: script.body, origin: name }).source).toBe(script.source);
  });

  it('the strict prelude comes from the build as well', () => {
    const source = strictVariant(scripts().claim).source;
    expect(source.startsWith(String(LUA_LIBS.core).slice(0, 200))).toBe(true);
    expect(source).toContain(LUA_STRICT.prelude);
  });

  it("an inline script includes Echo's libraries from the build, and a stray name is refused", () => {
    const inline = (includes: string): string =>
      ['-- @script probe', '-- @purpose Reads the server clock.', `-- @include ${includes}`, '-- @returns ms', 'return now_ms()'].join('\n');
    const probe = defineScript({ source: inline('core lanes') });
    expect(probe.source).toBe(`${String(LUA_LIBS.core)}\n${String(LUA_LIBS.lanes)}\n${inline('core lanes')}`);
    for (const lib of ['nope', 'constructor']) {
      expect(() => defineScript({ source: inline(lib) })).toThrow(`library ${lib} not found`);
    }
  });

  it('lists the script names from the folder, and files each under exactly one pillar', () => {
    expect(SCRIPT_NAMES).toBe(LUA_SCRIPT_NAMES);
    const filed = [...LUA_PILLAR_SCRIPTS.queue, ...LUA_PILLAR_SCRIPTS.bus, ...LUA_PILLAR_SCRIPTS.cache];
    expect(filed.sort()).toEqual([...SCRIPT_NAMES].sort());
    expect(LUA_PILLAR_SCRIPTS.bus).toContain('stream_claim');
    expect(LUA_PILLAR_SCRIPTS.cache).toContain('cache_write');
    expect(LUA_PILLAR_SCRIPTS.queue).toContain('claim');
  });

  it("writes core's job sub-keys from the key registry", () => {
    const core = String(LUA_LIBS.core);
    expect(core).not.toContain('EMQ_GENERATED_');
    expect(core).toContain(`local EMQ_JOB_SUB_LIST = { ${JOB_SUBS.map((sub) => `':${sub}'`).join(', ')} }`);
    for (const sub of JOB_SUBS) expect(core).toContain(`[':${sub}'] = true`);
  });

  it('each pillar may run exactly the commands its scripts reach, all of them known to the key law', () => {
    const rules = { queue: queueAclRules(['q']), bus: busAclRules(['q']), cache: cacheAclRules(['t']) };
    for (const pillar of ['queue', 'bus', 'cache'] as const) {
      for (const name of LUA_PILLAR_SCRIPTS[pillar]) {
        for (const command of LUA_SCRIPT_COMMANDS[name]) {
          expect(rules[pillar], `${pillar} runs ${name}`).toContain(`+${command}`);
          expect(KEY_ARGS[command], `${command} in the key-position table`).toBeDefined();
        }
      }
    }
    // The per-minute metrics trim (lib history) sizes its hash with HLEN; the hand-written list had missed it.
    expect(LUA_SCRIPT_COMMANDS.complete).toContain('hlen');
  });

  it('counts the commands a script reaches, not every command of its libraries', () => {
    const lib = [
      'local function used(k)',
      "  return redis.call('HGET', k, 'f')",
      'end',
      'local function unused(k)',
      "  redis.call('LPUSH', k, '1')",
      'end',
      'local function passed(k)',
      "  redis.pcall(\"ZADD\", k, 1, 'm')",
      'end',
      'local function indirect(k, f)',
      '  return f(k)',
      'end',
    ].join('\n');
    const body = ["-- unused(KEYS[1]) is only named in a comment", 'used(KEYS[1])', 'indirect(KEYS[1], passed)', "redis.call('TIME')"].join('\n');
    expect(reachableCommands([lib], body, 'probe')).toEqual(['hget', 'time', 'zadd']);
    expect(() => serverCommands('local c = ARGV[1]\nredis.call(c, KEYS[1])', 'probe')).toThrow('not a literal');
  });
});
