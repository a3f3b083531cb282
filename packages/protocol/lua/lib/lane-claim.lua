-- @lib lane-claim
-- @purpose The weighted and batch lane claims (queue.md §5.5, §7): rotate the ring once, then lease
-- up to K heads of that one lane under one deadline. [TS] The script hands over its declared keys by
-- name, so the library depends on no script's key order. Needs core, lease and gate. [TS] A lane
-- leaving the ring goes by ring_drop_rotated (lib gate): the spec's `LREM ring 0 g`, found from the tail.

-- lane_claim(k, cap, lease, marker): k names the declared keys: ring, active, meta, gactive, glimit,
-- jobroot, laneroot, limiter, grate. cap(g) bounds K beyond depth and limit (nil: the whole depth);
-- [TS] the gates of lib gate bound it too, counted on k.limiter, and so does the lane's own rate
-- limit in k.grate (a lane out of budget is passed over for the next one).
local function lane_claim(k, cap, lease, marker)
  local limiter, grate = k.limiter, k.grate
  local room, _, window = gate_room(k.meta, k.active, limiter, math.huge)
  if room < 1 then return {} end
  local ring = k.ring
  local g, lane_room, rate = lane_next(ring, grate)
  if not g then return {} end
  if not vid(g) then
    ring_drop_rotated(ring, g)
    return {}
  end
  local lane = gkey(k.laneroot, g)
  local n = redis.call('ZCARD', lane)
  if cap then n = math.min(n, cap(g)) end
  n = math.min(n, room, lane_room)
  local lim = tonumber(redis.call('HGET', k.glimit, g) or '')
  local act = tonumber(redis.call('HGET', k.gactive, g) or '0')
  if lim then n = math.min(n, lim - act) end
  if n <= 0 then
    ring_drop_rotated(ring, g)
    return {}
  end
  local deadline = now_ms() + lease
  local out = {}
  local want = n
  -- [TS] Heads skipped (gone, or settled as expired by lib expire) are made up from the lane's next
  -- ones; with none skipped this is the one ZPOPMIN it always was.
  while want > 0 do
    local popped = redis.call('ZPOPMIN', lane, want)
    for i = 1, #popped, 2 do
      local id = popped[i]
      local attempts, f = lease_job(k.active, k.jobroot, id, deadline, marker, 'payload', unpack(JOB_OPTIONS))
      if attempts then out[#out + 1] = { id, f[1], attempts, g, f[2], f[3], f[4], f[5], f[6], f[7] } end
    end
    if #popped < 2 * want then break end
    want = n - #out
  end
  if #out > 0 then act = redis.call('HINCRBY', k.gactive, g, #out) end
  gate_count(limiter, window, #out)
  lane_rate_count(grate, g, rate, #out)
  if (lim and act >= lim) or redis.call('ZCARD', lane) == 0 then ring_drop_rotated(ring, g) end
  return out
end
