-- @script gclaim
-- @purpose Rotate the ring one step and lease the oldest job of the lane that came up (queue.md §5.2).
-- Fairness is the rotation itself; a lane at its ceiling or left empty leaves the ring. A paused
-- queue claims nothing. [TS] A lane leaving the ring goes by ring_drop_rotated (lib gate): the same
-- ring as the spec's `LREM ring 0 g`, found from the tail where the rotation just put it.
-- @key ring       emq:{q}:ring
-- @key active     emq:{q}:active
-- @key meta       emq:{q}:meta
-- @key gactive    emq:{q}:gactive
-- @key glimit     emq:{q}:glimit
-- @key jobroot    emq:{q}:job:
-- @key laneroot   emq:{q}:g:
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
-- @include core history events retain expire lease gate
-- @returns {} when nothing is claimable; else {id, payload, attempts, g, name, max_attempts,
-- backoff, timeout_ms, traceparent, tracestate} (the last six are the [TS] per-job options and
-- trace context; false when absent). [TS] Publishes `active` per claimed job when meta `events` =
-- all (no `drained`: a lane claim does not see the whole queue)
local marker = tonumber(a_marker_ms or '0') or 0
lease_ticket_set(a_ticket)
ev_open(k_events, k_journal, k_meta)
expire_open(k_expired, k_meta, k_deroot)
local room, _, window = gate_room(k_meta, k_active, k_limiter, 1)
if room < 1 then return {} end
local ring = k_ring
local g, _, rate = lane_next(ring, k_grate)
if not g then return {} end
if not vid(g) then
  ring_drop_rotated(ring, g)
  return {}
end
local lane = gkey(k_laneroot, g)
local lim = tonumber(redis.call('HGET', k_glimit, g) or '')
-- I6 keeps a lane at its ceiling out of the ring; this holds the line if something broke it.
if lim and tonumber(redis.call('HGET', k_gactive, g) or '0') >= lim then
  ring_drop_rotated(ring, g)
  return {}
end
while true do
  local id = redis.call('ZPOPMIN', lane)[1]
  if not id then
    ring_drop_rotated(ring, g)
    return {}
  end
  local attempts, f = lease_job(k_active, k_jobroot, id, now_ms() + tonumber(a_lease_ms), marker, 'payload', unpack(JOB_OPTIONS))
  if attempts then
    gate_count(k_limiter, window, 1)
    lane_rate_count(k_grate, g, rate, 1)
    local act = redis.call('HINCRBY', k_gactive, g, 1)
    if (lim and act >= lim) or redis.call('ZCARD', lane) == 0 then ring_drop_rotated(ring, g) end
    local entry = { id, f[1], attempts, g, f[2], f[3], f[4], f[5], f[6], f[7] }
    hist_claimed(k_jobroot, { entry })
    ev_active({ entry })
    return entry
  end
end
