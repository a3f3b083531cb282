-- @script reschedule_job
-- @purpose [TS] Move one scheduled job in time: `now` releases it at once to its lane or to pending
-- (a promote of one id, queue.md §8.2); `in` sets its due time to server now + ms. A job that became
-- the earliest in the schedule pushes a due hint `d:<ms>` on the wake list, so a parked worker
-- re-arms its wake-up deadline (a consumer that does not know hints reads it as one spurious wake).
-- @key schedule   emq:{q}:schedule
-- @key pending    emq:{q}:pending
-- @key gactive    emq:{q}:gactive
-- @key glimit     emq:{q}:glimit
-- @key ring       emq:{q}:ring
-- @key wake       emq:{q}:wake
-- @key paused     emq:{q}:paused
-- @key row        emq:{q}:job:<id>
-- @key laneroot   emq:{q}:g:
-- @key events     emq:{q}:events [TS] (a channel, declared so no name is built): lib events
-- @key meta       emq:{q}:meta [TS]: the queue's event settings (lib events)
-- @key journal    emq:{q}:journal [TS]: the events journal, written when meta `journal` is set
-- @arg id         the job's id; must be JOB-namespaced
-- @arg mode       "now" or "in"
-- @arg ms         for "in": the new delay in ms from server now (ignored for "now")
-- @include core events lanes
-- @returns 1 moved (mode now publishes `waiting` [TS] when meta `events` = all); 0 the job is not scheduled (nothing changed); -1 gone (no row)
-- @error EMQKIND job id must be JOB-namespaced
local id = a_id
if string.sub(id, 1, 3) ~= 'JOB' then return redis.error_reply('EMQKIND job id must be JOB-namespaced') end
if redis.call('EXISTS', k_row) == 0 then
  redis.call('ZREM', k_schedule, id)
  return -1
end
if not redis.call('ZSCORE', k_schedule, id) then return 0 end
local lb = lane_keys(k_gactive, k_glimit, k_ring, k_wake, k_paused)
if a_mode == 'now' then
  redis.call('ZREM', k_schedule, id)
  local releasing = false
  if requeue(k_pending, lb, k_laneroot, id, redis.call('HGET', k_row, 'group'), releasing, flat_score(k_row)) then wake(lb) end
  redis.call('HSET', k_row, 'state', 'pending')
  ev_open(k_events, k_journal, k_meta)
  ev_chatty('waiting', id)
  return 1
end
local ms = tonumber(a_ms)
redis.call('ZADD', k_schedule, now_ms() + ms, id)
local head = redis.call('ZRANGE', k_schedule, 0, 0)
if head[1] == id then due_hint(k_wake, ms) end
return 1
