-- @script queue_pause
-- @purpose Stop every claim on the queue; admission, promote and reap go on (queue.md §8.1).
-- @key meta       emq:{q}:meta
-- @returns 1
redis.call('HSET', k_meta, 'paused', '1')
return 1
