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
-- @arg lease_ms   lease length in ms, from server now
-- @args marker     optional marker TTL in ms [TS]: writes each claimed job's job:<id>:lock in the same step
-- @include core
-- @returns a list of {id, payload, attempts, g}, oldest first, all from one lane; empty when nothing is
-- claimable
local marker = tonumber(ARGV[2] or '0') or 0
if redis.call('HEXISTS', KEYS[3], 'paused') == 1 then return {} end
local ring = KEYS[1]
local g = redis.call('LMOVE', ring, ring, 'LEFT', 'RIGHT')
if not g then return {} end
if not vid(g) then
  redis.call('LREM', ring, 0, g)
  return {}
end
local lane = gkey(KEYS[7], g)
local k = math.min(math.max(tonumber(redis.call('HGET', KEYS[8], g) or '1') or 1, 1), redis.call('ZCARD', lane))
local lim = tonumber(redis.call('HGET', KEYS[5], g) or '')
local act = tonumber(redis.call('HGET', KEYS[4], g) or '0')
if lim then k = math.min(k, lim - act) end
if k <= 0 then
  redis.call('LREM', ring, 0, g)
  return {}
end
local popped = redis.call('ZPOPMIN', lane, k)
local deadline = now_ms() + tonumber(ARGV[1])
local out = {}
for i = 1, #popped, 2 do
  local id = popped[i]
  if vid(id) then
    local row = jkey(KEYS[6], id)
    if redis.call('EXISTS', row) == 1 then
      local attempts = redis.call('HINCRBY', row, 'attempts', 1)
      redis.call('HSET', row, 'state', 'active')
      redis.call('ZADD', KEYS[2], deadline, id)
      if marker > 0 then redis.call('SET', jkey(KEYS[6], id, ':lock'), attempts, 'PX', marker) end
      out[#out + 1] = { id, redis.call('HGET', row, 'payload'), attempts, g }
    end
  end
end
if #out > 0 then act = redis.call('HINCRBY', KEYS[4], g, #out) end
if (lim and act >= lim) or redis.call('ZCARD', lane) == 0 then redis.call('LREM', ring, 0, g) end
return out
