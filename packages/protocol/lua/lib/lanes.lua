-- @lib lanes
-- @purpose The lane bookkeeping shared by every transition that moves a grouped job (protocol.md §6.3).
-- LB is the declared key list gactive, glimit, ring, wake, paused, in that order.

-- lane_keys(gactive, glimit, ring, wake, paused): the five lane-bookkeeping keys as one table, from
-- the script's declared names (k_gactive, ...), so no body reads them by KEYS position.
local function lane_keys(gactive, glimit, ring, wake, paused)
  return { gactive = gactive, glimit = glimit, ring = ring, wake = wake, paused = paused }
end

-- serviceable(lb, lane, g): I6, minus the ring membership test. Also answers the lane's size and
-- the group's ceiling (nil when none), which the re-ring variants below read.
local function serviceable(lb, lane, g)
  if redis.call('SISMEMBER', lb.paused, g) == 1 then return false end
  local card = redis.call('ZCARD', lane)
  if card == 0 then return false end
  local lim = redis.call('HGET', lb.glimit, g)
  if lim then
    lim = tonumber(lim)
    local act = tonumber(redis.call('HGET', lb.gactive, g) or '0')
    if act >= lim then return false end
  end
  return true, card, lim
end

-- join(lb, g): g enters the rotation; wake a consumer.
local function join(lb, g)
  redis.call('RPUSH', lb.ring, g)
  redis.call('LPUSH', lb.wake, '1')
  redis.call('LTRIM', lb.wake, 0, 63)
end

-- rering(lb, lane, g): put g back in rotation when it is serviceable and absent, and wake a consumer.
-- [TS] The membership test looks from the tail (`RANK -1`): the ring holds g at most once, so the
-- answer is the same, and a lane whose job just settled was rotated to the tail by its claim a few
-- claims ago, so it is found near there instead of after a walk over every lane in the ring.
local function rering(lb, lane, g)
  if not serviceable(lb, lane, g) then return end
  if redis.call('LPOS', lb.ring, g, 'RANK', -1) then return end
  join(lb, g)
end

-- [TS] The two re-rings of the hot paths below prove g's absence without the `LPOS` walk, which
-- over a ring of 10,000 lanes costs a scan of the list each time a lane is found absent (every
-- admission to an emptied lane, every slot freed under a ceiling). I6 holds before the script's
-- change (every script keeps it), so g was in the ring exactly when it was serviceable then; the
-- change (one job added to the lane, one slot given back) can only make g serviceable, so g must
-- join exactly when it is serviceable now and was not before. The ring ends as the spec's re-ring
-- leaves it. `added` is the answer of the `ZADD lane 0 id` the caller just ran, or nil when the
-- lane was not added to; an answer of 0 (the id was already there, which no consistent state
-- has) falls back to the spec's test.

-- rering_added(lb, lane, g, added): re-ring after `ZADD lane 0 id` answered `added`. The lane was
-- empty before exactly when it now holds one job, and an empty lane is out of the ring.
local function rering_added(lb, lane, g, added)
  if added ~= 1 then return rering(lb, lane, g) end
  local ok, card = serviceable(lb, lane, g)
  if ok and card == 1 then join(lb, g) end
end

-- release(lb, lane, g, added): an active lane job left active; give its slot back and re-ring.
-- `added`: as above, when the job was put back in its lane before this call (nil otherwise). g
-- was out of the ring before when its lane was empty or it held its ceiling's every slot.
local function release(lb, lane, g, added)
  local act = redis.call('HINCRBY', lb.gactive, g, -1)
  if act <= 0 then redis.call('HDEL', lb.gactive, g) end
  if added == 0 then return rering(lb, lane, g) end
  local ok, card, lim = serviceable(lb, lane, g)
  if not ok then return end
  if (added == 1 and card == 1) or (lim and act + 1 >= lim) then join(lb, g) end
end

-- wake(lb): a flat job became claimable; let one parked consumer know.
local function wake(lb)
  redis.call('LPUSH', lb.wake, '1')
  redis.call('LTRIM', lb.wake, 0, 63)
end

-- leave_active(active, pending, lb, laneroot, id, g): what every settlement does first. The job
-- leaves active (releasing its lane slot when grouped); a job settled by a token that still
-- matches after a reap also leaves the pending set or lane it was put back in.
local function leave_active(active, pending, lb, laneroot, id, g)
  local was_active = redis.call('ZREM', active, id) == 1
  if g and vid(g) then
    local lane = gkey(laneroot, g)
    if was_active then
      release(lb, lane, g)
    else
      redis.call('ZREM', lane, id)
      if redis.call('ZCARD', lane) == 0 then redis.call('LREM', lb.ring, 0, g) end
    end
  elseif not was_active then
    redis.call('ZREM', pending, id)
  end
end

-- [TS] flat_score(row): the pending score of a flat job, -priority (0 without one), so ZPOPMIN serves
-- the highest priority first and, within equal scores, lexical (mint) order as before.
local function flat_score(row)
  return 0 - (tonumber(redis.call('HGET', row, 'priority')) or 0)
end

-- requeue(pending, lb, laneroot, id, g, releasing, score): put a job back where a claim finds it:
-- its lane (re-ringing, and giving back its slot when it held one) or flat pending at `score` (its
-- [TS] -priority; 0 when nil). Answers true for a flat job, so the caller can wake a consumer once
-- per call.
local function requeue(pending, lb, laneroot, id, g, releasing, score)
  if g and vid(g) then
    local lane = gkey(laneroot, g)
    local added = redis.call('ZADD', lane, 0, id)
    if releasing then release(lb, lane, g, added) else rering_added(lb, lane, g, added) end
    return false
  end
  redis.call('ZADD', pending, score or 0, id)
  return true
end

-- requeue_due(set, pending, lb, jobroot, laneroot, limit, releasing): promote and reap are one move
-- read from two sets. Up to `limit` members of `set` whose score is due by server now leave it and
-- go back where a claim finds them (see requeue; `releasing` gives back the lane slot a lease held),
-- with their row marked pending. Ids that fail the check or whose row vanished are dropped, never
-- recreated. Answers how many jobs moved; `moved_one`, when given, is called with each moved id.
local function requeue_due(set, pending, lb, jobroot, laneroot, limit, releasing, moved_one)
  local due = redis.call('ZRANGEBYSCORE', set, '-inf', now_ms(), 'LIMIT', 0, limit)
  local moved, flat = 0, 0
  for _, id in ipairs(due) do
    redis.call('ZREM', set, id)
    if vid(id) then
      local row = jkey(jobroot, id)
      if redis.call('EXISTS', row) == 1 then
        local f = redis.call('HMGET', row, 'group', 'priority')
        if requeue(pending, lb, laneroot, id, f[1], releasing, 0 - (tonumber(f[2]) or 0)) then flat = flat + 1 end
        redis.call('HSET', row, 'state', 'pending')
        moved = moved + 1
        if moved_one then moved_one(id) end
      end
    end
  end
  if flat > 0 then wake(lb) end
  return moved
end
