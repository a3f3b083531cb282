-- @lib gate
-- @purpose [TS] The gates a claim passes on the server, read from meta in one HMGET: the queue-wide
-- pause, the global concurrency cap (meta.concurrency against ZCARD active, queue.md §9.2, here
-- enforced) and the rate limiter (meta.max jobs per meta.duration ms). The limiter key keeps the
-- shape queue.md §9.4 asks of a writer: a STRING counter incremented once per claimed job, with
-- PEXPIRE window set when the count starts, so rate_ttl reads it unchanged. Needs events: the same
-- HMGET reads the queue's event settings, so a claim pays no second read of meta for them.

local EMQ_GATE_META = false

-- gate_read(meta): the gate fields and the event settings of meta, read in one HMGET once per call
-- (a script may read them early, before it settles, and the claim reuses them: nothing it settles
-- touches meta).
local function gate_read(meta)
  if not EMQ_GATE_META then
    EMQ_GATE_META = redis.call('HMGET', meta, 'paused', 'concurrency', 'max', 'duration', 'events', 'journal')
    ev_seed(EMQ_GATE_META[5], EMQ_GATE_META[6])
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
