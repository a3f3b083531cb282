-- @script is_maxed
-- @purpose Consult the queue's concurrency ceiling before claiming; a read that may refuse and moves
-- nothing (queue.md §9.2).
-- @key meta       emq:{q}:meta
-- @key active     emq:{q}:active
-- @returns 0 (room to claim)
-- @error EMQRATE at concurrency ceiling
local ceiling = tonumber(redis.call('HGET', k_meta, 'concurrency') or '0') or 0
if ceiling > 0 and redis.call('ZCARD', k_active) >= ceiling then
  return redis.error_reply('EMQRATE at concurrency ceiling')
end
return 0
