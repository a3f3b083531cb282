-- @script promote
-- @purpose Release due scheduled jobs: each goes to its lane (re-ringing it) or to flat pending
-- (queue.md §8.2). Rows that vanished are dropped, never recreated.
-- @key schedule   emq:{q}:schedule
-- @key pending    emq:{q}:pending
-- @key gactive    emq:{q}:gactive
-- @key glimit     emq:{q}:glimit
-- @key ring       emq:{q}:ring
-- @key wake       emq:{q}:wake
-- @key paused     emq:{q}:paused
-- @key jobroot    emq:{q}:job:
-- @key laneroot   emq:{q}:g:
-- @key events     emq:{q}:events [TS] (a channel, declared so no name is built): lib events
-- @key meta       emq:{q}:meta [TS]: the queue's event settings (lib events)
-- @key journal    emq:{q}:journal [TS]: the events journal, written when meta `journal` is set
-- @arg limit      most ids to move
-- @include core events lanes
-- @returns the number of jobs moved; [TS] each publishes `waiting` when meta `events` = all
local releasing = false -- a scheduled job held no lease, so no lane slot goes back
ev_open(k_events, k_journal, k_meta)
local waiting = nil
if ev_chatty_on() then waiting = function(id) ev_emit('waiting', id) end end
return requeue_due(k_schedule, k_pending, lane_keys(k_gactive, k_glimit, k_ring, k_wake, k_paused), k_jobroot, k_laneroot, tonumber(a_limit), releasing, waiting)
