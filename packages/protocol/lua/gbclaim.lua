-- @script gbclaim
-- @purpose Rotate the ring one step and lease every job of the lane that came up, up to its ceiling,
-- all under one deadline, so the batch is homogeneous (queue.md §7). A paused queue claims nothing.
-- @key ring       emq:{q}:ring
-- @key active     emq:{q}:active
-- @key meta       emq:{q}:meta
-- @key gactive    emq:{q}:gactive
-- @key glimit     emq:{q}:glimit
-- @key jobroot    emq:{q}:job:
-- @key laneroot   emq:{q}:g:
-- @key limiter    emq:{q}:limiter [TS]: the rate window's counter (see lib gate)
-- @key grate      emq:{q}:grate [TS]: the lanes' own rate limits; a lane out of budget is passed over
-- @key gweight    emq:{q}:gweight [TS]: read only with a size, to scale each lane's batch by its weight
-- @key events     emq:{q}:events [TS] (a channel, declared so no name is built): lib events
-- @key journal    emq:{q}:journal [TS]: the events journal, written when meta `journal` is set
-- @key expired    emq:{q}:expired [TS]: jobs a claim met past their deadline, by finish time (lib expire)
-- @key deroot     emq:{q}:de: [TS]: the root of the idempotency key an expired row names (lib expire)
-- @arg lease_ms   lease length in ms, from server now
-- @args extras     optional marker TTL in ms [TS]: writes each claimed job's job:<id>:lock in the same step
-- (0: none); then [TS] optional size: the most jobs to lease (a batch worker's `size`), scaled by
-- the lane's weight against the heaviest lane's: size * w / w_max, at least 1 (no weights: size);
-- absent or "", the whole claimable depth; then [TS] optional: the claim ticket (lib lease), for
-- claim_recover
-- @argtail   marker_ms size ticket
-- @include core history events retain expire lease gate lane-claim
-- @returns a list of {id, payload, attempts, g, name, max_attempts, backoff, timeout_ms,
-- traceparent, tracestate} ([TS] the last six, false when absent), oldest first, all from one lane; empty when nothing is
-- claimable. [TS] Publishes `active` per claimed job when meta `events` = all (no
-- `drained`: a lane claim does not see the whole queue)
local marker = tonumber(a_marker_ms or '0') or 0
local size = tonumber(a_size or '')
lease_ticket_set(a_ticket)
local cap = nil
if size and size >= 1 then
  -- Weighted batches: a lane's share of service follows its weight, each batch still one lane's.
  local heaviest = 1
  for _, w in ipairs(redis.call('HVALS', k_gweight)) do heaviest = math.max(heaviest, tonumber(w) or 1) end
  cap = function(g)
    local w = math.max(tonumber(redis.call('HGET', k_gweight, g) or '1') or 1, 1)
    return math.max(math.floor(size * w / heaviest), 1)
  end
end
ev_open(k_events, k_journal, k_meta)
expire_open(k_expired, k_meta, k_deroot)
local lk = { ring = k_ring, active = k_active, meta = k_meta, gactive = k_gactive, glimit = k_glimit }
lk.jobroot, lk.laneroot, lk.limiter, lk.grate = k_jobroot, k_laneroot, k_limiter, k_grate
local out = lane_claim(lk, cap, tonumber(a_lease_ms), marker)
ev_active(out)
hist_claimed(k_jobroot, out)
return out
