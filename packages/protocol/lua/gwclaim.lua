-- @script gwclaim
-- @purpose Rotate the ring one step and lease up to the lane's weight in jobs from the lane that came
-- up, all under one deadline, never past its ceiling (queue.md §5.5). Weight shapes the share of
-- service without starving a lane; an unweighted lane behaves like gclaim. A paused queue claims nothing.
-- @key ring       emq:{q}:ring
-- @key active     emq:{q}:active
-- @key meta       emq:{q}:meta
-- @key gactive    emq:{q}:gactive
-- @key glimit     emq:{q}:glimit
-- @key jobroot    emq:{q}:job:
-- @key laneroot   emq:{q}:g:
-- @key gweight    emq:{q}:gweight
-- @key limiter    emq:{q}:limiter [TS]: the rate window's counter (see lib gate)
-- @key grate      emq:{q}:grate [TS]: the lanes' own rate limits; a lane out of budget is passed over
-- @key events     emq:{q}:events [TS] (a channel, declared so no name is built): lib events
-- @key journal    emq:{q}:journal [TS]: the events journal, written when meta `journal` is set
-- @key expired    emq:{q}:expired [TS]: jobs a claim met past their deadline, by finish time (lib expire)
-- @key deroot     emq:{q}:de: [TS]: the root of the idempotency key an expired row names (lib expire)
-- @arg lease_ms   lease length in ms, from server now
-- @args extras     [TS] optional: the marker TTL in ms (0 for none): writes each claimed job's
-- job:<id>:lock in the same step; then the claim ticket (lib lease), for claim_recover
-- @argtail   marker_ms ticket
-- @include core history events retain expire lease gate lane-claim
-- @returns a list of {id, payload, attempts, g, name, max_attempts, backoff, timeout_ms,
-- traceparent, tracestate} ([TS] the last six, false when absent), oldest first, all from one lane; empty when nothing is
-- claimable. [TS] Publishes `active` per claimed job when meta `events` = all (no
-- `drained`: a lane claim does not see the whole queue)
local marker = tonumber(a_marker_ms or '0') or 0
lease_ticket_set(a_ticket)
-- A lane's weight is how many of its heads one rotation serves; an absent weight is 1.
local function weight(g)
  return math.max(tonumber(redis.call('HGET', k_gweight, g) or '1') or 1, 1)
end
ev_open(k_events, k_journal, k_meta)
expire_open(k_expired, k_meta, k_deroot)
local lk = { ring = k_ring, active = k_active, meta = k_meta, gactive = k_gactive, glimit = k_glimit }
lk.jobroot, lk.laneroot, lk.limiter, lk.grate = k_jobroot, k_laneroot, k_limiter, k_grate
local out = lane_claim(lk, weight, tonumber(a_lease_ms), marker)
ev_active(out)
hist_claimed(k_jobroot, out)
return out
