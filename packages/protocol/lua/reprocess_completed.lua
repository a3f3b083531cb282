-- @script reprocess_completed
-- @purpose [TS] Bring a retained completed job back to pending (its lane when grouped), clearing
-- `finished_at` and `result` and keeping attempts so the next claim mints the next token: the
-- completed-job counterpart of reprocess (BullMQ's `job.retry('completed')`). The row leaves the
-- completed index in the same step, so retention never deletes the job while it runs again.
-- @key row        emq:{q}:job:<id>
-- @key retained   emq:{q}:completed [TS]: retained completed ids by finish time
-- @key pending    emq:{q}:pending
-- @key gactive    emq:{q}:gactive
-- @key glimit     emq:{q}:glimit
-- @key ring       emq:{q}:ring
-- @key wake       emq:{q}:wake
-- @key paused     emq:{q}:paused
-- @key laneroot   emq:{q}:g:
-- @key events     emq:{q}:events [TS] (a channel, declared so no name is built): lib events
-- @key meta       emq:{q}:meta [TS]: the queue's event settings (lib events)
-- @key journal    emq:{q}:journal [TS]: the events journal, written when meta `journal` is set
-- @arg id         the job's id
-- @include core events lanes
-- @returns 1 moved; -1 gone (no row); publishes `waiting` when meta `events` = all
-- @error EMQSTATE not completed
local id = a_id
if redis.call('EXISTS', k_row) == 0 then return -1 end
if redis.call('HGET', k_row, 'state') ~= 'completed' then return redis.error_reply('EMQSTATE not completed') end
redis.call('ZREM', k_retained, id)
redis.call('HDEL', k_row, 'finished_at', 'result', 'claim_ticket')
redis.call('HSET', k_row, 'state', 'pending')
local lb = lane_keys(k_gactive, k_glimit, k_ring, k_wake, k_paused)
-- Back where a claim finds it (lib lanes requeue): its lane, re-ringed, or flat pending at its priority.
if requeue(k_pending, lb, k_laneroot, id, redis.call('HGET', k_row, 'group'), false, flat_score(k_row)) then wake(lb) end
ev_open(k_events, k_journal, k_meta)
ev_chatty('waiting', id)
return 1
