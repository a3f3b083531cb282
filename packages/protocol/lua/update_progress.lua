-- @script update_progress
-- @purpose Record a job's progress and publish the progress event in the same atomic step
-- (queue.md §8.5, bus.md §1).
-- @key row        emq:{q}:job:<id>
-- @key events     emq:{q}:events (a channel, declared so no name is built)
-- @arg id         the job's id
-- @arg progress   the progress text
-- @returns 1 recorded; -1 gone (nothing published)
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
redis.call('HSET', KEYS[1], 'progress', ARGV[2])
redis.call('PUBLISH', KEYS[2], cjson.encode({ event = 'progress', job = ARGV[1], progress = ARGV[2] }))
return 1
