-- @script retry_dead
-- @purpose [TS] Bring up to `limit` dead jobs back to be claimed, oldest death-set member first: the
-- bulk form of reprocess (queue.md §4.3), bounded so one call never holds the server long. Each row
-- loses last_error (and [TS] finished_at) and keeps attempts; a grouped job goes back to its lane
-- (re-ringing it), any other to flat pending. A member whose row vanished is dropped, never recreated.
-- @key dead       emq:{q}:dead
-- @key pending    emq:{q}:pending
-- @key gactive    emq:{q}:gactive
-- @key glimit     emq:{q}:glimit
-- @key ring       emq:{q}:ring
-- @key wake       emq:{q}:wake
-- @key paused     emq:{q}:paused
-- @key jobroot    emq:{q}:job:
-- @key laneroot   emq:{q}:g:
-- @key deadat     emq:{q}:dead:at [TS]: each job leaves the finish-time index with the dead set
-- @key events     emq:{q}:events [TS] (a channel, declared so no name is built): lib events
-- @key meta       emq:{q}:meta [TS]: the queue's event settings (lib events)
-- @key journal    emq:{q}:journal [TS]: the events journal, written when meta `journal` is set
-- @arg limit      most jobs to move
-- @include core events lanes
-- @returns the number of jobs moved back; [TS] each publishes `waiting` when meta `events` = all
local ids = redis.call('ZRANGE', k_dead, 0, tonumber(a_limit) - 1)
local lb = lane_keys(k_gactive, k_glimit, k_ring, k_wake, k_paused)
local moved, flat = 0, 0
ev_open(k_events, k_journal, k_meta)
local chatty = ev_chatty_on()
for _, id in ipairs(ids) do
  redis.call('ZREM', k_dead, id)
  redis.call('ZREM', k_deadat, id)
  if vid(id) then
    local row = jkey(k_jobroot, id)
    if redis.call('EXISTS', row) == 1 then
      redis.call('HDEL', row, 'last_error', 'finished_at')
      redis.call('HSET', row, 'state', 'pending')
      local releasing = false
      if requeue(k_pending, lb, k_laneroot, id, redis.call('HGET', row, 'group'), releasing, flat_score(row)) then flat = flat + 1 end
      moved = moved + 1
      if chatty then ev_emit('waiting', id) end
    end
  end
end
if flat > 0 then wake(lb) end
return moved
