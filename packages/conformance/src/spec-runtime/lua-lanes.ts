/** The lane transitions and obliterate of the spec-only runtime (queue.md §5, §8.4), from the spec's text alone. */
import { CORE, DEL_JOB } from './lua-lib.js';
import { specScript } from './script.js';

/** KEYS row, lane(g), ring, paused, glimit, gactive, wake · ARGV id, payload, g · 1, 0. */
export const genqueue = specScript(
  'genqueue',
  CORE,
  `local id, g = ARGV[1], ARGV[3]
if string.sub(id, 1, 3) ~= 'JOB' or not vid(id) or not vid(g) then return redis.error_reply('EMQKIND job id must be JOB-namespaced') end
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'state', 'pending', 'attempts', '0', 'payload', ARGV[2], 'group', g)
redis.call('ZADD', KEYS[2], 0, id)
if redis.call('SISMEMBER', KEYS[4], g) == 0 then
  local lim = redis.call('HGET', KEYS[5], g)
  if (not lim or tonumber(redis.call('HGET', KEYS[6], g) or '0') < tonumber(lim)) and not redis.call('LPOS', KEYS[3], g) then
    redis.call('RPUSH', KEYS[3], g)
    redis.call('LPUSH', KEYS[7], '1')
    redis.call('LTRIM', KEYS[7], 0, 63)
  end
end
return 1`,
);

/** KEYS ring, active, meta, gactive, glimit, JR, GR · ARGV lease_ms · {} or {id, payload, attempts, g}. */
export const gclaim = specScript(
  'gclaim',
  CORE,
  `if redis.call('HGET', KEYS[3], 'paused') then return {} end
local g = redis.call('LMOVE', KEYS[1], KEYS[1], 'LEFT', 'RIGHT')
if not g then return {} end
if not vid(g) then
  redis.call('LREM', KEYS[1], 0, g)
  return {}
end
local lane = KEYS[7] .. g .. ':pending'
local id, row
while true do
  local popped = redis.call('ZPOPMIN', lane)
  if #popped == 0 then
    redis.call('LREM', KEYS[1], 0, g)
    return {}
  end
  if vid(popped[1]) and redis.call('EXISTS', KEYS[6] .. popped[1]) == 1 then
    id = popped[1]
    row = KEYS[6] .. id
    break
  end
end
local a = redis.call('HINCRBY', row, 'attempts', 1)
redis.call('HSET', row, 'state', 'active')
redis.call('ZADD', KEYS[2], now_ms() + tonumber(ARGV[1]), id)
local act = redis.call('HINCRBY', KEYS[4], g, 1)
local lim = redis.call('HGET', KEYS[5], g)
if (lim and act >= tonumber(lim)) or redis.call('ZCARD', lane) == 0 then redis.call('LREM', KEYS[1], 0, g) end
return { id, redis.call('HGET', row, 'payload'), a, g }`,
);

/**
 * KEYS meta, pending, active, schedule, dead, ring, paused, glimit, gactive, gweight, wake, limiter,
 * the four metrics keys, repeat, flow:outbox, JR, GR, repeat:<n>… · ARGV force, budget, names… · 0 done, 1 more.
 */
export const obliterate = specScript(
  'obliterate',
  CORE,
  DEL_JOB,
  `if not redis.call('HGET', KEYS[1], 'paused') then return redis.error_reply('EMQSTATE not paused') end
local force = ARGV[1] == 'force'
if not force and redis.call('LLEN', KEYS[18]) > 0 then return redis.error_reply('EMQSTATE outbox not empty') end
if not force and redis.call('ZCARD', KEYS[3]) > 0 then return redis.error_reply('EMQSTATE active jobs present') end
local budget = tonumber(ARGV[2])
local function purge(set)
  if budget <= 0 then return redis.call('ZCARD', set) == 0 end
  local ids = redis.call('ZRANGE', set, 0, budget - 1)
  for _, id in ipairs(ids) do
    if vid(id) then del_job(KEYS[19], id) end
    redis.call('ZREM', set, id)
  end
  budget = budget - #ids
  return redis.call('ZCARD', set) == 0
end
for _, set in ipairs({ KEYS[3], KEYS[2], KEYS[4], KEYS[5] }) do
  if not purge(set) then return 1 end
end
local seen, groups = {}, {}
local function note(list)
  for _, g in ipairs(list) do
    if not seen[g] then
      seen[g] = true
      groups[#groups + 1] = g
    end
  end
end
note(redis.call('LRANGE', KEYS[6], 0, -1))
note(redis.call('SMEMBERS', KEYS[7]))
note(redis.call('HKEYS', KEYS[8]))
note(redis.call('HKEYS', KEYS[9]))
note(redis.call('HKEYS', KEYS[10]))
for _, g in ipairs(groups) do
  if vid(g) then
    local lane = KEYS[20] .. g .. ':pending'
    if not purge(lane) then return 1 end
    redis.call('DEL', lane)
  end
end
for i = 3, #ARGV do
  local record = KEYS[18 + i]
  if record then redis.call('DEL', record) end
  redis.call('ZREM', KEYS[17], ARGV[i])
end
if redis.call('ZCARD', KEYS[17]) > 0 then return 1 end
redis.call('DEL', KEYS[13], KEYS[14], KEYS[15], KEYS[16], KEYS[9], KEYS[8], KEYS[10], KEYS[6], KEYS[11], KEYS[7],
  KEYS[17], KEYS[12], KEYS[18], KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5])
return 0`,
);

/** KEYS glimit, gactive, ring, paused, wake, lane(g) · ARGV g, n · 1 (queue.md §5.3). */
export const glimit = specScript(
  'glimit',
  CORE,
  `local g, n = ARGV[1], tonumber(ARGV[2])
redis.call('HSET', KEYS[1], g, n)
if tonumber(redis.call('HGET', KEYS[2], g) or '0') >= n then
  redis.call('LREM', KEYS[3], 0, g)
elseif redis.call('SISMEMBER', KEYS[4], g) == 0 and redis.call('ZCARD', KEYS[6]) > 0 and not redis.call('LPOS', KEYS[3], g) then
  redis.call('RPUSH', KEYS[3], g)
  redis.call('LPUSH', KEYS[5], '1')
  redis.call('LTRIM', KEYS[5], 0, 63)
end
return 1`,
);

/** KEYS paused, ring · ARGV g · 1 (queue.md §5.4). */
export const gpause = specScript('gpause', `redis.call('SADD', KEYS[1], ARGV[1])
redis.call('LREM', KEYS[2], 0, ARGV[1])
return 1`);

/** KEYS paused, ring, glimit, gactive, wake, lane(g) · ARGV g · 1 (queue.md §5.4). */
export const gresume = specScript(
  'gresume',
  `local g = ARGV[1]
redis.call('SREM', KEYS[1], g)
local lim = redis.call('HGET', KEYS[3], g)
if redis.call('ZCARD', KEYS[6]) > 0 and (not lim or tonumber(redis.call('HGET', KEYS[4], g) or '0') < tonumber(lim)) and not redis.call('LPOS', KEYS[2], g) then
  redis.call('RPUSH', KEYS[2], g)
  redis.call('LPUSH', KEYS[5], '1')
  redis.call('LTRIM', KEYS[5], 0, 63)
end
return 1`,
);
