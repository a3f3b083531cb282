-- @script give_back
-- @purpose [TS] Give back jobs a worker claimed but will not run (it was paused or is closing with
-- jobs claimed ahead of its handlers): each job it still holds under its token leaves active and goes
-- back where a claim finds it, as a reap would put it (flat pending at its -priority score, so it
-- sorts among its equals by mint order again, ahead of every job admitted after it; or its lane,
-- giving back the lane slot and re-ringing), marked pending, its :lock marker deleted. Not a failure:
-- attempts, last_error and the stalled count are kept, and no failure is counted; the next claim
-- mints the next token, so the giver is fenced out from then on. A job whose token no longer
-- matches (its lease lapsed and someone else holds it), that is not active, or whose row is gone is
-- left exactly as it is. One parked consumer is woken when a flat job came back, so another worker
-- takes it now rather than after a lease lapse.
-- @key active     emq:{q}:active
-- @key pending    emq:{q}:pending
-- @key gactive    emq:{q}:gactive
-- @key glimit     emq:{q}:glimit
-- @key ring       emq:{q}:ring
-- @key wake       emq:{q}:wake
-- @key paused     emq:{q}:paused
-- @key jobroot    emq:{q}:job:
-- @key laneroot   emq:{q}:g:
-- @key events     emq:{q}:events (a channel, declared so no name is built; lib events)
-- @key meta       emq:{q}:meta (the queue's event and history settings: lib events, lib history)
-- @key journal    emq:{q}:journal (the events journal, written when meta `journal` is set)
-- @args pairs     id1, token1, id2, token2, ...: the jobs and the tokens their claims returned
-- @include core history events lanes
-- @returns the ids given back, in input order; each publishes `waiting` when meta `events` = all,
-- and its attempt history (when kept) ends as `delayed` with the reason "given back"
ev_open(k_events, k_journal, k_meta)
local lb = lane_keys(k_gactive, k_glimit, k_ring, k_wake, k_paused)
local given, flat = {}, 0
for i = 1, #ARGV, 2 do
  local id = ARGV[i]
  if vid(id) then
    local row = jkey(k_jobroot, id)
    local f = redis.call('HMGET', row, 'attempts', 'group', 'priority')
    if f[1] and f[1] == ARGV[i + 1] and redis.call('ZREM', k_active, id) == 1 then
      if requeue(k_pending, lb, k_laneroot, id, f[2], true, 0 - (tonumber(f[3]) or 0)) then flat = flat + 1 end
      redis.call('HSET', row, 'state', 'pending')
      redis.call('HDEL', row, 'claim_ticket')
      redis.call('DEL', jkey(k_jobroot, id, ':lock'))
      hist_settled(k_meta, k_jobroot, id, f[1], 'delayed', 'given back', nil)
      ev_chatty('waiting', id)
      given[#given + 1] = id
    end
  end
end
if flat > 0 then wake(lb) end
return given
