-- @script scheduler_fire
-- @purpose [TS] Fire one due occurrence of a scheduler in one step (queue.md §10.2, made atomic): only
-- while the name is still due for the occurrence the host read, enqueue the template under a fresh
-- id, count the run, and move the name to its next occurrence, or retire it once its window or run
-- limit is spent. A pump that lost the race to another process changes nothing, so an occurrence is
-- enqueued once however many pumps run. A missed stretch (downtime) fires once, then the next
-- occurrence after now: no burst. [TS] The job's row names its scheduler (`scheduler`), and the
-- record keeps the last run (`last_ms`, `last_job`), so an operator can go from one to the other.
-- @key repeat     emq:{q}:repeat
-- @key record     emq:{q}:repeat:<name>
-- @key row        emq:{q}:job:<id>
-- @key pending    emq:{q}:pending
-- @key wake       emq:{q}:wake
-- @arg name       the scheduler's name
-- @arg due        the score scheduler_due answered for it
-- @arg id         a fresh JOB id for this occurrence
-- @arg next_at    for a cron scheduler, the host's next occurrence after now (epoch ms); "" otherwise
-- @include core
-- @returns 1 fired; 0 not fired (no longer due for that occurrence, or retired); -1 record gone (the
-- name is removed)
-- @error EMQKIND job id must be JOB-namespaced
if string.sub(a_id, 1, 3) ~= 'JOB' then return redis.error_reply('EMQKIND job id must be JOB-namespaced') end
local score = redis.call('ZSCORE', k_repeat, a_name)
if not score or tonumber(score) ~= tonumber(a_due) then return 0 end
local f = redis.call('HMGET', k_record, 'template', 'every_ms', 'end_ms', 'limit', 'count')
local template, every, ends, limit, count = f[1], tonumber(f[2]), tonumber(f[3]), tonumber(f[4]), tonumber(f[5] or '0')
if not template then
  redis.call('ZREM', k_repeat, a_name)
  return -1
end
local now = now_ms()
local function retire()
  redis.call('ZREM', k_repeat, a_name)
  redis.call('DEL', k_record)
end
if (ends and now > ends) or (limit and count >= limit) then
  retire()
  return 0
end
if redis.call('EXISTS', k_row) == 0 then
  redis.call('HSET', k_row, 'state', 'pending', 'attempts', '0', 'payload', template, 'scheduler', a_name)
  redis.call('ZADD', k_pending, 0, a_id)
  redis.call('LPUSH', k_wake, '1')
  redis.call('LTRIM', k_wake, 0, 63)
end
count = redis.call('HINCRBY', k_record, 'count', 1)
redis.call('HSET', k_record, 'last_ms', now, 'last_job', a_id)
local next_at = tonumber(a_next_at)
if every then next_at = now + every end
if not next_at or (limit and count >= limit) or (ends and next_at > ends) then
  retire()
else
  redis.call('ZADD', k_repeat, next_at, a_name)
end
return 1
