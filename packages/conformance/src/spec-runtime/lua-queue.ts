/**
 * The flat-queue transitions of the spec-only runtime, each written from queue.md §2-§4 and §8 and
 * protocol.md §7: no retention, no indexes, no events, none of Echo's `[TS]` keys or fields. Lane
 * bookkeeping (LB) is the spec's order: gactive, glimit, ring, wake, paused.
 */
import { CORE, DEL_JOB, laneBookkeeping } from './lua-lib.js';
import { specScript } from './script.js';

const KIND = `if string.sub(ARGV[1], 1, 3) ~= 'JOB' or not vid(ARGV[1]) then return redis.error_reply('EMQKIND job id must be JOB-namespaced') end`;

/** KEYS row, pending · ARGV id, payload · 1 enqueued, 0 duplicate. */
export const enqueue = specScript(
  'enqueue',
  CORE,
  KIND,
  `if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'state', 'pending', 'attempts', '0', 'payload', ARGV[2])
redis.call('ZADD', KEYS[2], 0, ARGV[1])
return 1`,
);

/** KEYS pending, active, meta, JR · ARGV lease_ms · {} or {id, payload, attempts}. */
export const claim = specScript(
  'claim',
  CORE,
  `if redis.call('HGET', KEYS[3], 'paused') then return {} end
local now = now_ms()
while true do
  local popped = redis.call('ZPOPMIN', KEYS[1])
  if #popped == 0 then return {} end
  local id = popped[1]
  local row = KEYS[4] .. id
  if vid(id) and redis.call('EXISTS', row) == 1 then
    local a = redis.call('HINCRBY', row, 'attempts', 1)
    redis.call('HSET', row, 'state', 'active')
    redis.call('ZADD', KEYS[2], now + tonumber(ARGV[1]), id)
    return { id, redis.call('HGET', row, 'payload'), a }
  end
end`,
);

/** The token fence and the leave-active bookkeeping shared by complete and retry (queue.md §3.3 steps 1-5). */
function settleHead(verb: string): string {
  return `local id, row = ARGV[1], KEYS[5]
if redis.call('EXISTS', row) == 0 then return redis.error_reply('EMQSTALE job gone') end
if redis.call('HGET', row, 'attempts') ~= ARGV[2] then return redis.error_reply('EMQSTALE ${verb} token mismatch') end
local was = redis.call('ZREM', KEYS[1], id) == 1
local g = redis.call('HGET', row, 'group')
if g and vid(g) then
  unlane(g, KEYS[12] .. g .. ':pending', id, was)
elseif not was then
  redis.call('ZREM', KEYS[2], id)
end
redis.call('ZREM', KEYS[3], id)
redis.call('ZREM', KEYS[4], id)`;
}

/** KEYS active, pending, schedule, dead, row, metrics:completed, LB…, GR · ARGV id, token · 1. */
export const complete = specScript(
  'complete',
  CORE,
  laneBookkeeping(7),
  settleHead('complete'),
  `redis.call('DEL', row)
redis.call('HINCRBY', KEYS[6], 'count', 1)
return 1`,
);

/** KEYS active, pending, schedule, dead, row, metrics:failed, LB…, GR · ARGV id, token, delay_ms, max_attempts, error. */
export const retry = specScript(
  'retry',
  CORE,
  laneBookkeeping(7),
  settleHead('retry'),
  `redis.call('HSET', row, 'last_error', ARGV[5])
if tonumber(redis.call('HGET', row, 'attempts')) >= tonumber(ARGV[4]) then
  redis.call('HSET', row, 'state', 'dead')
  redis.call('ZADD', KEYS[4], 0, id)
  redis.call('HINCRBY', KEYS[6], 'count', 1)
  return 'dead'
end
redis.call('HSET', row, 'state', 'scheduled')
redis.call('ZADD', KEYS[3], now_ms() + tonumber(ARGV[3]), id)
return 'scheduled'`,
);

/** KEYS active, schedule, row, LB…, GR · ARGV id, token, in|at, ms · 1. */
export const delay = specScript(
  'delay',
  CORE,
  laneBookkeeping(4),
  `local id, row = ARGV[1], KEYS[3]
if string.sub(id, 1, 3) ~= 'JOB' or not vid(id) then return redis.error_reply('EMQKIND job id must be JOB-namespaced') end
if redis.call('EXISTS', row) == 0 then return redis.error_reply('EMQSTALE job gone') end
if redis.call('HGET', row, 'attempts') ~= ARGV[2] then return redis.error_reply('EMQSTALE delay token mismatch') end
if redis.call('ZREM', KEYS[1], id) == 0 then return redis.error_reply('EMQSTALE not active') end
local g = redis.call('HGET', row, 'group')
if g and vid(g) then release(g, KEYS[9] .. g .. ':pending') end
redis.call('HSET', row, 'state', 'scheduled')
local score = tonumber(ARGV[4])
if ARGV[3] == 'in' then score = now_ms() + score end
redis.call('ZADD', KEYS[2], score, id)
return 1`,
);

/** KEYS schedule, pending, LB…, JR, GR · ARGV limit · number moved. */
export const promote = specScript(
  'promote',
  CORE,
  laneBookkeeping(3),
  `local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now_ms(), 'LIMIT', 0, tonumber(ARGV[1]))
local moved = 0
for _, id in ipairs(due) do
  redis.call('ZREM', KEYS[1], id)
  local row = KEYS[8] .. id
  if vid(id) and redis.call('EXISTS', row) == 1 then
    redis.call('HSET', row, 'state', 'pending')
    local g = redis.call('HGET', row, 'group')
    if g and vid(g) then
      local lane = KEYS[9] .. g .. ':pending'
      redis.call('ZADD', lane, 0, id)
      rering(g, lane)
    else
      redis.call('ZADD', KEYS[2], 0, id)
    end
    moved = moved + 1
  end
end
return moved`,
);

/** KEYS row, dead, pending, LB…, GR · ARGV id · 1, -1 gone · EMQSTATE not dead. */
export const reprocess = specScript(
  'reprocess',
  CORE,
  laneBookkeeping(4),
  `local id, row = ARGV[1], KEYS[1]
if redis.call('EXISTS', row) == 0 then return -1 end
if redis.call('ZREM', KEYS[2], id) == 0 then return redis.error_reply('EMQSTATE not dead') end
redis.call('HDEL', row, 'last_error')
redis.call('HSET', row, 'state', 'pending')
local g = redis.call('HGET', row, 'group')
if g and vid(g) then
  local lane = KEYS[9] .. g .. ':pending'
  redis.call('ZADD', lane, 0, id)
  rering(g, lane)
else
  redis.call('ZADD', KEYS[3], 0, id)
end
return 1`,
);

/** KEYS pending, active, schedule, dead, LB…, JR, GR · ARGV id · 1, -1 · EMQLOCK job is locked. */
export const removeJob = specScript(
  'remove_job',
  CORE,
  laneBookkeeping(5),
  DEL_JOB,
  `local id = ARGV[1]
if not vid(id) then return -1 end
local row = KEYS[10] .. id
if redis.call('EXISTS', row .. ':lock') == 1 or redis.call('HEXISTS', row, 'lock') == 1 then
  return redis.error_reply('EMQLOCK job is locked')
end
if redis.call('EXISTS', row) == 0 then return -1 end
local was = redis.call('ZREM', KEYS[2], id) == 1
redis.call('ZREM', KEYS[1], id)
redis.call('ZREM', KEYS[3], id)
redis.call('ZREM', KEYS[4], id)
local g = redis.call('HGET', row, 'group')
if g and vid(g) then unlane(g, KEYS[11] .. g .. ':pending', id, was) end
del_job(KEYS[10], id)
return 1`,
);

/** KEYS meta · HSET paused. */
export const queuePause = specScript('queue_pause', `redis.call('HSET', KEYS[1], 'paused', '1')
return 1`);

/** KEYS meta · HDEL paused. */
export const queueResume = specScript('queue_resume', `redis.call('HDEL', KEYS[1], 'paused')
return 1`);

/** KEYS active, pending, LB…, JR, GR · ARGV limit · number recovered (queue.md §6.1). */
export const reap = specScript(
  'reap',
  CORE,
  laneBookkeeping(3),
  `local expired = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now_ms(), 'LIMIT', 0, tonumber(ARGV[1]))
local n = 0
for _, id in ipairs(expired) do
  redis.call('ZREM', KEYS[1], id)
  local row = KEYS[8] .. id
  if vid(id) and redis.call('EXISTS', row) == 1 then
    redis.call('HSET', row, 'state', 'pending')
    local g = redis.call('HGET', row, 'group')
    if g and vid(g) then
      local lane = KEYS[9] .. g .. ':pending'
      redis.call('ZADD', lane, 0, id)
      release(g, lane)
    else
      redis.call('ZADD', KEYS[2], 0, id)
    end
    n = n + 1
  end
end
return n`,
);
