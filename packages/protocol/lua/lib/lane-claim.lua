-- @lib lane-claim
-- @purpose The weighted and batch lane claims (queue.md §5.5, §7): rotate the ring once, then lease
-- up to K heads of that one lane under one deadline. Reads the gclaim key layout: ring, active,
-- meta, gactive, glimit, jobroot, laneroot. Needs core, lease and gate. [TS] A lane leaving the ring
-- goes by ring_drop_rotated (lib gate): the spec's `LREM ring 0 g`, found from the tail.

-- lane_claim(cap, lease, marker, limiter, grate): cap(g) bounds K beyond depth and limit (nil: the
-- whole depth); [TS] the gates of lib gate bound it too, counted on `limiter`, and so does the
-- lane's own rate limit in `grate` (a lane out of budget is passed over for the next one).
local function lane_claim(cap, lease, marker, limiter, grate)
  local room, _, window = gate_room(KEYS[3], KEYS[2], limiter, math.huge)
  if room < 1 then return {} end
  local ring = KEYS[1]
  local g, lane_room, rate = lane_next(ring, grate)
  if not g then return {} end
  if not vid(g) then
    ring_drop_rotated(ring, g)
    return {}
  end
  local lane = gkey(KEYS[7], g)
  local k = redis.call('ZCARD', lane)
  if cap then k = math.min(k, cap(g)) end
  k = math.min(k, room, lane_room)
  local lim = tonumber(redis.call('HGET', KEYS[5], g) or '')
  local act = tonumber(redis.call('HGET', KEYS[4], g) or '0')
  if lim then k = math.min(k, lim - act) end
  if k <= 0 then
    ring_drop_rotated(ring, g)
    return {}
  end
  local deadline = now_ms() + lease
  local out = {}
  local want = k
  -- [TS] Heads skipped (gone, or settled as expired by lib expire) are made up from the lane's next
  -- ones; with none skipped this is the one ZPOPMIN it always was.
  while want > 0 do
    local popped = redis.call('ZPOPMIN', lane, want)
    for i = 1, #popped, 2 do
      local id = popped[i]
      local attempts, f = lease_job(KEYS[2], KEYS[6], id, deadline, marker, 'payload', unpack(JOB_OPTIONS))
      if attempts then out[#out + 1] = { id, f[1], attempts, g, f[2], f[3], f[4], f[5], f[6], f[7] } end
    end
    if #popped < 2 * want then break end
    want = k - #out
  end
  if #out > 0 then act = redis.call('HINCRBY', KEYS[4], g, #out) end
  gate_count(limiter, window, #out)
  lane_rate_count(grate, g, rate, #out)
  if (lim and act >= lim) or redis.call('ZCARD', lane) == 0 then ring_drop_rotated(ring, g) end
  return out
end
