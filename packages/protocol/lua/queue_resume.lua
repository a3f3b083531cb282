-- @script queue_resume
-- @purpose Let claims run again after a queue-wide pause (queue.md §8.1).
-- @key meta       emq:{q}:meta
-- @returns 1
redis.call('HDEL', KEYS[1], 'paused')
return 1
