-- @script worker_list
-- @purpose [TS] Read the live entries of the queue's worker registry under the server's clock: an
-- entry whose lapse time passed is left out (the next beat drops it). Writes nothing.
-- @key workers    emq:{q}:workers [TS]: ZSET worker id → the server ms its entry lapses
-- @key info       emq:{q}:workers:info [TS]: HASH worker id → its description
-- @arg limit      most entries to answer (>= 1), soonest to lapse first
-- @include core
-- @returns {now, id1, lapses1, info1, id2, ...}; an entry without a description answers false for it
local now = now_ms()
local live = redis.call('ZRANGEBYSCORE', k_workers, '(' .. now, '+inf', 'WITHSCORES', 'LIMIT', 0, tonumber(a_limit))
local out = { now }
if #live == 0 then return out end
local ids = {}
for i = 1, #live, 2 do ids[#ids + 1] = live[i] end
local info = redis.call('HMGET', k_info, unpack(ids))
for i, id in ipairs(ids) do
  out[#out + 1] = id
  out[#out + 1] = tonumber(live[i * 2])
  out[#out + 1] = info[i]
end
return out
