-- @script complete_claim
-- @purpose [TS] One round of a busy worker in one step: complete the jobs it holds, exactly as
-- complete_batch does (each fenced on its own token; a flow child answers -3 and is left for
-- complete), then lease up to `size` of the oldest pending jobs as bclaim does (a paused queue
-- claims nothing). A worker whose handlers finish together pays one script call per round, not two
-- per job.
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
-- @key meta       emq:{q}:meta
-- @key limiter    emq:{q}:limiter [TS]: the rate window's counter (see lib gate)
-- @key retained   emq:{q}:completed [TS]: retained completed ids by finish time (meta holds the policy)
-- @key deroot     emq:{q}:de: [TS]: the root of the idempotency key a row names
-- @key journal    emq:{q}:journal [TS]: the events journal, written when meta `journal` is set (lib events)
-- @key outcomes   emq:{q}:outcomes [TS]: recent completions (job, result) when no completed row is kept (lib retain)
-- @key expired    emq:{q}:expired [TS]: jobs a claim met past their deadline, by finish time (lib expire)
-- @arg publish    "1" publishes (and journals) {"event":"completed","job":id} (with "result" when
-- there is one) for each completed member, else ""
-- @arg lease_ms   lease length in ms of the claimed jobs, from server now
-- @arg size       most jobs to claim after settling (0 claims nothing)
-- @arg marker     marker TTL in ms: writes each claimed job's job:<id>:lock in the same step; 0 writes none
-- @arg ticket     [TS] the claim ticket (lib lease), for claim_recover; "" writes none
-- @args triples   id1, token1, result1, ... of the jobs to complete (result "" for none; none is fine)
-- @include core history events lanes retain expire lease settle gate
-- @returns {codes, claimed, limited_ms}: one code per triple as complete_batch answers (1 completed;
-- -1 gone; -2 token mismatch; -3 a flow child), then the claimed jobs as bclaim answers them (the
-- concurrency cap and rate limit of lib gate apply), then the ms until the rate window reopens
-- when the limiter refused the claim (0 otherwise), so a worker sleeps exactly that long. [TS]
-- `active` and `drained` for the claimed jobs as claim publishes them (lib events)
local held = { active = k_active, pending = k_pending, schedule = k_schedule, dead = k_dead, completed = k_completed,
  lb = lane_keys(k_gactive, k_glimit, k_ring, k_wake, k_paused), laneroot = k_laneroot, jobroot = k_jobroot }
held.meta, held.retained, held.deroot, held.outcomes, held.wake = k_meta, k_retained, k_deroot, k_outcomes, k_wake
ev_open(k_events, k_journal, k_meta)
expire_open(k_expired, k_meta, k_deroot)
-- One read of meta serves the claim's gates, the completed events and the retention policy.
local m = gate_read(k_meta)
lease_ticket_set(a_ticket)
local codes = complete_held(held, 6, a_publish == '1', keep_of(m[7], m[8], m[9], m[10]))
local size = tonumber(a_size)
local claimed = {}
local limited = 0
if size > 0 then
  local room, wait, window = gate_room(k_meta, k_active, k_limiter, size)
  limited = wait
  if room > 0 then
    claimed = lease_pop(k_active, k_jobroot, k_pending, room, tonumber(a_lease_ms), tonumber(a_marker))
    gate_count(k_limiter, window, #claimed)
    hist_claimed(k_jobroot, claimed)
    ev_claimed(k_pending, claimed)
  end
end
return { codes, claimed, limited }
