import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GENERATED_FILE, REGENERATE, renderLuaModule } from '../scripts/gen-lua.js';
import { LUA_LIBS, LUA_SCRIPTS, LUA_STRICT } from '../src/scripts/generated/lua-sources.js';
import { defineScript, scripts, SCRIPT_NAMES, sha1, strictVariant } from './support.js';

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
});
