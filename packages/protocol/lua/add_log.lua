-- @script add_log
-- @purpose Append a line to a job's log, optionally keeping only the newest `keep` lines
-- (queue.md §8.5).
-- @key row        emq:{q}:job:<id>
-- @key logs       emq:{q}:job:<id>:logs
-- @arg line       the text to append
-- @arg keep       lines to keep; "" or "0" keeps all
-- @returns the new length (at most keep); -1 gone
if redis.call('EXISTS', k_row) == 0 then return -1 end
local len = redis.call('RPUSH', k_logs, a_line)
local keep = tonumber(a_keep) or 0
if keep > 0 then
  redis.call('LTRIM', k_logs, -keep, -1)
  if len > keep then return keep end
end
return len
