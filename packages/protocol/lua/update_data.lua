-- @script update_data
-- @purpose Replace a job's payload in place (queue.md §8.5).
-- @key row        emq:{q}:job:<id>
-- @arg payload    the new opaque bytes
-- @returns 1 replaced; -1 gone
if redis.call('EXISTS', k_row) == 0 then return -1 end
redis.call('HSET', k_row, 'payload', a_payload)
return 1
