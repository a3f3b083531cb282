-- @lib gate
-- @purpose [TS] The gates a claim passes on the server, read from meta in one HMGET: the queue-wide
-- pause, the global concurrency cap (meta.concurrency against ZCARD active, queue.md §9.2, here
-- enforced) and the rate limiter (meta.max jobs per meta.duration ms). The limiter key keeps the
-- shape queue.md §9.4 asks of a writer: a STRING counter incremented once per claimed job, with
-- PEXPIRE window set when the count starts, so rate_ttl reads it unchanged. The lane claims also
-- pass each lane's own rate limit (the grate hash), on top of the queue's. Needs events and history: the same
-- HMGET reads the queue's event settings, so a claim pays no second read of meta for them.

local EMQ_GATE_META = false

-- gate_read(meta): the gate fields, the event settings and the retention bounds of meta (fields 7-10:
-- keep_completed_count, keep_completed_age, keep_failed_count, keep_failed_age; lib retain's
-- keep_of reads them) and [TS] the history settings (fields 11-12, seeded into lib history), in one HMGET once per call (a script may read them early, before it settles,
-- and the claim reuses them: nothing it settles touches meta).
local function gate_read(meta)
  if not EMQ_GATE_META then
    EMQ_GATE_META = redis.call('HMGET', meta, 'paused', 'concurrency', 'max', 'duration', 'events', 'journal',
      'keep_completed_count', 'keep_completed_age', 'keep_failed_count', 'keep_failed_age', 'history', 'minutes')
    ev_seed(EMQ_GATE_META[5], EMQ_GATE_META[6])
    hist_seed(EMQ_GATE_META[11], EMQ_GATE_META[12])
  end
  return EMQ_GATE_META
end

-- gate_room(meta, active, limiter, want): how many jobs this claim may lease now (0..want), then
-- the ms until the rate window reopens when the limiter is what refused (0 otherwise), then the
-- window to count claimed jobs under (0: no limiter). A paused queue answers 0, 0, 0.
local function gate_room(meta, active, limiter, want)
  local m = gate_read(meta)
  if m[1] then return 0, 0, 0 end
  local room = want
  local cap = tonumber(m[2] or '') or 0
  if cap > 0 then room = math.min(room, cap - redis.call('ZCARD', active)) end
  local max = tonumber(m[3] or '') or 0
  local window = tonumber(m[4] or '') or 0
  if max <= 0 or window <= 0 then return math.max(room, 0), 0, 0 end
  local used = tonumber(redis.call('GET', limiter) or '0') or 0
  if used >= max then
    local ttl = redis.call('PTTL', limiter)
    if ttl > 0 then return 0, ttl, window end
    -- A counter without a deadline can only be a broken writer's: start a fresh window.
    redis.call('DEL', limiter)
    used = 0
  end
  return math.max(math.min(room, max - used), 0), 0, window
end

-- gate_count(limiter, window, n): counts n claimed jobs in the current rate window.
local function gate_count(limiter, window, n)
  if window > 0 and n > 0 and redis.call('INCRBY', limiter, n) == n then redis.call('PEXPIRE', limiter, window) end
end

-- [TS] A lane's own rate limit lives in the grate hash, field g = "max:duration" as set, then
-- "max:duration:window_end:used" once a claim counted in a window (a fixed window that starts at
-- the first claim after the last one ended, as the queue's limiter does).

-- lane_rate_room(grate, g): how many jobs lane g may lease now under its rate limit (math.huge
-- without one), then the window state lane_rate_count writes back (nil without a limit).
local function lane_rate_room(grate, g)
  local v = redis.call('HGET', grate, g)
  if not v then return math.huge, nil end
  local max, dur, tail = string.match(v, '^(%d+):(%d+)(.*)$')
  max, dur = tonumber(max), tonumber(dur)
  if not max or not dur or max < 1 or dur < 1 then return math.huge, nil end
  local now = now_ms()
  local ends, used = string.match(tail, '^:(%d+):(%d+)$')
  ends, used = tonumber(ends) or 0, tonumber(used) or 0
  if ends <= now then ends, used = now + dur, 0 end
  return math.max(max - used, 0), { max, dur, ends, used }
end

-- lane_rate_count(grate, g, state, n): counts n claimed jobs in lane g's current window.
local function lane_rate_count(grate, g, state, n)
  if state and n > 0 then
    redis.call('HSET', grate, g, string.format('%d:%d:%d:%d', state[1], state[2], state[3], state[4] + n))
  end
end

-- ring_drop_rotated(ring, g): [TS] takes g out of the ring right after lane_next rotated it to the
-- tail. The ring holds each lane once (I6), so `LREM ring -1 g`, which scans from the tail, finds it
-- at once and leaves the ring exactly as the spec's `LREM ring 0 g` does; that one scans the whole
-- ring, so with 10,000 lanes each emptied lane cost a walk over 10,000 entries.
local function ring_drop_rotated(ring, g)
  redis.call('LREM', ring, -1, g)
end

-- lane_next(ring, grate): rotate the ring to the next lane with room in its own rate window. A lane
-- out of budget is passed over and stays in rotation (its window reopens by time alone, and nothing
-- else would put it back), at most one full turn. Answers the lane, its room and its window state;
-- nil when the ring is empty or every lane in it is out of budget.
local function lane_next(ring, grate)
  if redis.call('EXISTS', grate) == 0 then
    return redis.call('LMOVE', ring, ring, 'LEFT', 'RIGHT'), math.huge, nil
  end
  for _ = 1, redis.call('LLEN', ring) do
    local g = redis.call('LMOVE', ring, ring, 'LEFT', 'RIGHT')
    if not g then return nil end
    local room, state = lane_rate_room(grate, g)
    if room > 0 then return g, room, state end
  end
  return nil
end
