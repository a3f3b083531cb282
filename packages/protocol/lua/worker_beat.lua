-- @script worker_beat
-- @purpose [TS] A worker's heartbeat in the queue's worker registry (queue.getWorkers): its entry
-- now lapses at server now + ttl_ms and its description is replaced. Up to 16 entries that lapsed
-- already are dropped on the way, so a worker that died without a word leaves the registry without a
-- sweeper of its own.
-- @key workers    emq:{q}:workers [TS]: ZSET worker id → the server ms its entry lapses
-- @key info       emq:{q}:workers:info [TS]: HASH worker id → its description (opaque here)
-- @arg id         the worker's id (a registry member, never part of a key)
-- @arg ttl_ms     how long the entry stands without another beat (>= 1)
-- @arg info       the worker's description
-- @include core
-- @returns the server ms at which the entry lapses
local now = now_ms()
local lapsed = redis.call('ZRANGEBYSCORE', k_workers, '-inf', now, 'LIMIT', 0, 16)
if #lapsed > 0 then
  redis.call('ZREM', k_workers, unpack(lapsed))
  redis.call('HDEL', k_info, unpack(lapsed))
end
local deadline = now + tonumber(a_ttl_ms)
redis.call('ZADD', k_workers, deadline, a_id)
redis.call('HSET', k_info, a_id, a_info)
return deadline
