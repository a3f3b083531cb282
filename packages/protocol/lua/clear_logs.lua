-- @script clear_logs
-- @purpose [TS] Trim a job's log to its newest `keep` lines, or delete it (queue.md §8.5's log).
-- @key row        emq:{q}:job:<id>
-- @key logs       emq:{q}:job:<id>:logs
-- @arg keep       lines to keep, newest first; "0" deletes the log
-- @returns the lines left; -1 gone (nothing written)
if redis.call('EXISTS', k_row) == 0 then return -1 end
local keep = tonumber(a_keep) or 0
if keep <= 0 then
  redis.call('DEL', k_logs)
  return 0
end
redis.call('LTRIM', k_logs, -keep, -1)
return redis.call('LLEN', k_logs)
