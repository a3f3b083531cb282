-- @script reap
-- @purpose Crash recovery: every lease past its deadline goes back to its lane or to pending with
-- attempts kept, so the next claim mints the next token and the old holder is fenced out
-- (queue.md §6.1).
-- @key active     emq:{q}:active
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
-- @arg limit      most leases to recover (default 100)
-- @include core history events lanes
-- @returns the number of jobs recovered; [TS] each publishes `waiting` when meta `events` = all
local releasing = true -- an expired lease gives its lane slot back
-- Meta is read only once a lease was recovered: the maintenance loop reaps on every tick, mostly
-- finding nothing.
ev_open(k_events, k_journal, k_meta)
local function waiting(id)
  hist_settled(k_meta, k_jobroot, id, nil, 'stalled', 'lease lapsed', nil)
  ev_chatty('waiting', id)
end
return requeue_due(k_active, k_pending, lane_keys(k_gactive, k_glimit, k_ring, k_wake, k_paused), k_jobroot, k_laneroot, tonumber(a_limit), releasing, waiting)
