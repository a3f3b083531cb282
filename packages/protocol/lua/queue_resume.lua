-- @script queue_resume
-- @purpose Let claims run again after a queue-wide pause (queue.md §8.1).
-- @key meta       emq:{q}:meta
-- @returns 1
redis.call('HDEL', k_meta, 'paused')
return 1
