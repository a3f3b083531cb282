-- @script worker_leave
-- @purpose [TS] A worker's clean exit from the queue's worker registry: its entry goes at once
-- rather than lapsing.
-- @key workers    emq:{q}:workers [TS]: ZSET worker id → the server ms its entry lapses
-- @key info       emq:{q}:workers:info [TS]: HASH worker id → its description
-- @arg id         the worker's id
-- @returns 1 the entry was there; 0 it was not
redis.call('HDEL', k_info, a_id)
return redis.call('ZREM', k_workers, a_id)
