-- @script complete_batch
-- @purpose [TS] Settle many held jobs as done in one step, each fenced on its own token with the
-- same effects as complete: a batch worker's successes cost one round trip instead of one each.
-- Only plain jobs: a flow child answers -3 and must settle through complete, which feeds its parent.
-- [TS] Each member is retained or deleted by the queue's retention policy and releases the
-- idempotency key its row names, as complete does.
-- @key active     emq:{q}:active
-- @key pending    emq:{q}:pending
-- @key schedule   emq:{q}:schedule
-- @key dead       emq:{q}:dead
-- @key completed  emq:{q}:metrics:completed
-- @key gactive    emq:{q}:gactive
-- @key glimit     emq:{q}:glimit
-- @key ring       emq:{q}:ring
-- @key wake       emq:{q}:wake
-- @key paused     emq:{q}:paused
-- @key laneroot   emq:{q}:g:
-- @key jobroot    emq:{q}:job:
-- @key events     emq:{q}:events (a channel, declared so no name is built)
-- @key meta       emq:{q}:meta [TS]: the retention policy and the queue's event settings (lib retain, lib events)
-- @key retained   emq:{q}:completed [TS]: retained completed ids by finish time
-- @key deroot     emq:{q}:de: [TS]: the root of the idempotency key a row names
-- @key journal    emq:{q}:journal [TS]: the events journal, written when meta `journal` is set (lib events)
-- @key outcomes   emq:{q}:outcomes [TS]: recent completions (job, result) when no completed row is kept (lib retain)
-- @arg publish    "1" publishes (and journals) {"event":"completed","job":id} (with "result" when
-- there is one) for each completed member, else ""
-- @args triples   id1, token1, result1, id2, token2, result2, ... (result "" for none)
-- @include core history events lanes retain settle
-- @returns one code per triple, in order: 1 completed; -1 gone; -2 token mismatch; -3 a flow child
local held = { active = k_active, pending = k_pending, schedule = k_schedule, dead = k_dead, completed = k_completed,
  lb = lane_keys(k_gactive, k_glimit, k_ring, k_wake, k_paused), laneroot = k_laneroot, jobroot = k_jobroot }
held.meta, held.retained, held.deroot, held.outcomes, held.wake = k_meta, k_retained, k_deroot, k_outcomes, k_wake
ev_open(k_events, k_journal, k_meta)
return complete_held(held, 2, a_publish == '1')
