-- @script retention_set
-- @purpose [TS] Set the queue's finished-job retention in meta (lib retain reads it at every
-- completion and dead-lettering): how many completed and dead jobs are kept, and for how long.
-- Stored in the queue, not per process, so every worker settles by the same rule.
-- @key meta       emq:{q}:meta
-- @arg completed_count  completed jobs kept; "0" keeps none (the row is deleted, queue.md §3.3)
-- @arg completed_age    ms a completed job is kept at most; "" for no age bound
-- @arg failed_count     dead jobs kept; "-1" for no count bound; "" for the default (10000)
-- @arg failed_age       ms a dead job is kept at most; "" for no age bound
-- @returns 1
local fields = { 'keep_completed_count', 'keep_completed_age', 'keep_failed_count', 'keep_failed_age' }
for i, field in ipairs(fields) do
  if ARGV[i] == '' then
    redis.call('HDEL', k_meta, field)
  else
    redis.call('HSET', k_meta, field, ARGV[i])
  end
end
return 1
