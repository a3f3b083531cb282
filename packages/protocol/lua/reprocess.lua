-- @script reprocess
-- @purpose Bring a dead job back to pending (its lane when grouped), clearing last_error (and [TS]
-- finished_at) and keeping attempts so the next claim mints the next token (queue.md §4.3).
-- @key row        emq:{q}:job:<id>
-- @key dead       emq:{q}:dead
-- @key pending    emq:{q}:pending
-- @key gactive    emq:{q}:gactive
-- @key glimit     emq:{q}:glimit
-- @key ring       emq:{q}:ring
-- @key wake       emq:{q}:wake
-- @key paused     emq:{q}:paused
-- @key laneroot   emq:{q}:g:
-- @key deadat     emq:{q}:dead:at [TS]: the job leaves the finish-time index with the dead set
-- @key events     emq:{q}:events [TS] (a channel, declared so no name is built): lib events
-- @key meta       emq:{q}:meta [TS]: the queue's event settings (lib events)
-- @key journal    emq:{q}:journal [TS]: the events journal, written when meta `journal` is set
-- @arg id         the job's id
-- @include core events lanes
-- @returns 1 moved; -1 gone (no row); [TS] publishes `waiting` when meta `events` = all
-- @error EMQSTATE not dead
local id = a_id
if redis.call('EXISTS', k_row) == 0 then return -1 end
if redis.call('ZREM', k_dead, id) == 0 then return redis.error_reply('EMQSTATE not dead') end
redis.call('ZREM', k_deadat, id)
redis.call('HDEL', k_row, 'last_error', 'finished_at', 'claim_ticket')
redis.call('HSET', k_row, 'state', 'pending')
local lb = lane_keys(k_gactive, k_glimit, k_ring, k_wake, k_paused)
-- Back where a claim finds it (lib lanes requeue): its lane, re-ringed, or flat pending at its priority.
if requeue(k_pending, lb, k_laneroot, id, redis.call('HGET', k_row, 'group'), false, flat_score(k_row)) then wake(lb) end
ev_open(k_events, k_journal, k_meta)
ev_chatty('waiting', id)
return 1
