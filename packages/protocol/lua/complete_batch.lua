-- @script complete_batch
-- @purpose [TS] Settle many held jobs as done in one step, each fenced on its own token with the
-- same effects as complete: a batch worker's successes cost one round trip instead of one each.
-- Only plain jobs: a flow child answers -3 and must settle through complete, which feeds its parent.
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
-- @arg publish    "1" publishes {"event":"completed","job":id} for each completed member, else ""
-- @args pairs     id1, token1, id2, token2, ...
-- @include core lanes
-- @returns one code per pair, in order: 1 completed; -1 gone; -2 token mismatch; -3 a flow child
local out = {}
local lb = lb_at(6)
local done = 0
for i = 2, #ARGV, 2 do
  local id = ARGV[i]
  local code = -1
  if vid(id) then
    local row = jkey(KEYS[12], id)
    local f = redis.call('HMGET', row, 'attempts', 'group', 'state', 'parent')
    if f[1] then
      if f[1] ~= ARGV[i + 1] then
        code = -2
      elseif f[4] then
        code = -3
      else
        leave_active(KEYS[1], KEYS[2], lb, KEYS[11], id, f[2])
        if f[3] == 'scheduled' then redis.call('ZREM', KEYS[3], id) end
        if f[3] == 'dead' then redis.call('ZREM', KEYS[4], id) end
        redis.call('DEL', row, jkey(KEYS[12], id, ':lock'), jkey(KEYS[12], id, ':logs'))
        if ARGV[1] == '1' then redis.call('PUBLISH', KEYS[13], cjson.encode({ event = 'completed', job = id })) end
        done = done + 1
        code = 1
      end
    end
  end
  out[#out + 1] = code
end
if done > 0 then redis.call('HINCRBY', KEYS[5], 'count', done) end
return out
