-- @script enqueue
-- @purpose Admit a fresh job to the flat pending set; idempotent by id (queue.md §2.1).
-- @key row        emq:{q}:job:<id>
-- @key pending    emq:{q}:pending
-- @keys wake      optional emq:{q}:wake [TS]: when declared, one token wakes a parked consumer
-- @arg id         the job's branded id; must be JOB-namespaced
-- @arg payload    opaque bytes, never interpreted
-- @returns 1 enqueued; 0 duplicate (the row exists; nothing written)
-- @error EMQKIND job id must be JOB-namespaced
if string.sub(ARGV[1], 1, 3) ~= 'JOB' then return redis.error_reply('EMQKIND job id must be JOB-namespaced') end
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'state', 'pending', 'attempts', '0', 'payload', ARGV[2])
redis.call('ZADD', KEYS[2], 0, ARGV[1])
if KEYS[3] then
  redis.call('LPUSH', KEYS[3], '1')
  redis.call('LTRIM', KEYS[3], 0, 63)
end
return 1
