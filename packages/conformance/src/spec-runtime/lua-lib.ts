/**
 * The spec's shared sub-procedures (protocol.md §4.6 `vid`, §6.3 now, re-ring, release), inlined at
 * the head of each script as the spec describes. The lane helpers read the five lane-bookkeeping
 * keys (LB: gactive, glimit, ring, wake, paused) from the `KEYS` slots a script names.
 */

/** `vid(s)` and the server clock. */
export const CORE = `
local function vid(s)
  return type(s) == 'string' and #s == 14 and string.match(s, '^%u%u%u[0-9A-Za-z]+$') ~= nil
    and string.sub(s, 4) <= 'AzL8n0Y58m7'
end
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
`;

/** re-ring(g) and release(g) over LB starting at `KEYS[first]`. */
export function laneBookkeeping(first: number): string {
  return `
local k_gactive, k_glimit, k_ring, k_wake, k_paused = KEYS[${first}], KEYS[${first + 1}], KEYS[${first + 2}], KEYS[${first + 3}], KEYS[${first + 4}]
local function rering(g, lane)
  if redis.call('SISMEMBER', k_paused, g) == 1 then return end
  if redis.call('ZCARD', lane) == 0 then return end
  local lim = redis.call('HGET', k_glimit, g)
  if lim and tonumber(redis.call('HGET', k_gactive, g) or '0') >= tonumber(lim) then return end
  if redis.call('LPOS', k_ring, g) then return end
  redis.call('RPUSH', k_ring, g)
  redis.call('LPUSH', k_wake, '1')
  redis.call('LTRIM', k_wake, 0, 63)
end
local function release(g, lane)
  if redis.call('HINCRBY', k_gactive, g, -1) <= 0 then redis.call('HDEL', k_gactive, g) end
  rering(g, lane)
end
-- Leaves the lane bookkeeping right for a grouped id that left active (was) or its lane (not was).
local function unlane(g, lane, id, was)
  if was then
    release(g, lane)
  else
    redis.call('ZREM', lane, id)
    if redis.call('ZCARD', lane) == 0 then redis.call('LREM', k_ring, 0, g) end
  end
end
`;
}

/** The job subkeys the spec's closed set names (protocol.md §3.1); nothing else is deleted with a row. */
export const DEL_JOB = `
local function del_job(jr, id)
  redis.call('DEL', jr .. id, jr .. id .. ':lock', jr .. id .. ':logs', jr .. id .. ':dependencies',
    jr .. id .. ':processed', jr .. id .. ':failed', jr .. id .. ':unsuccessful')
end
`;
