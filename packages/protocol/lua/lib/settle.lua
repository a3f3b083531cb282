-- @lib settle
-- @purpose [TS] Completing many held jobs in one step, each fenced on its own token with the effects
-- of complete (queue.md §3.3) for a job that is not a flow child, retention and idempotency-key
-- release included. Needs core, history, events (opened by the script), lanes and retain.

-- zrem_all(set, ids): ZREM of every id, in slices well below Lua's unpack bound. Answers how many left.
local function zrem_all(set, ids)
  local removed = 0
  for i = 1, #ids, 1000 do
    removed = removed + redis.call('ZREM', set, unpack(ids, i, math.min(i + 999, #ids)))
  end
  return removed
end

-- complete_held(k, first, publish, policy?): completes the (id, token, result) triples of ARGV from index
-- `first` on (result "" for none). k names the declared keys: active, pending, schedule, dead,
-- completed (the metrics counter), lb (lane_keys), laneroot, jobroot, meta, retained (the retention
-- index), deroot, outcomes (the recent completions). `publish` publishes (and journals) `completed` per member through lib events, with
-- `result` when there is one. Answers one code per triple, in
-- order: 1 completed; -1 gone (a row already completed too); -2 token mismatch; -3 a flow child
-- (left untouched: it must settle through complete, which feeds its parent).
local function complete_held(k, first, publish, policy)
  local out = {}
  local flat = {}
  local done = 0
  -- One read of meta serves the retention policy and the event settings; a caller that read meta
  -- already (complete_claim, with its gates) passes the policy and has seeded the events.
  if not policy then
    local m
    policy, m = keep_read(k.meta, 'events', 'journal', 'history', 'minutes')
    if publish then ev_seed(m[5], m[6]) end
    hist_seed(m[7], m[8])
  end
  local ended = { jobroot = k.jobroot, completed = k.retained, deroot = k.deroot, outcomes = k.outcomes, pending = k.pending, schedule = k.schedule, wake = k.wake }
  -- Ids completed by this call: their rows are deleted only at retain_flush, so a repeat in the
  -- same call answers gone here, as it would once the row is gone.
  local seen = {}
  for i = first, #ARGV, 3 do
    local id = ARGV[i]
    local code = -1
    if vid(id) and not seen[id] then
      local row = jkey(k.jobroot, id)
      local f = redis.call('HMGET', row, 'attempts', 'group', 'state', 'parent', 'dedup', 'dedup_keep', 'flow')
      if f[1] and f[3] ~= 'completed' then
        if f[1] ~= ARGV[i + 1] then
          code = -2
        elseif f[4] then
          code = -3
        else
          if f[2] and vid(f[2]) then
            leave_active(k.active, k.pending, k.lb, k.laneroot, id, f[2])
          else
            flat[#flat + 1] = id
          end
          if f[3] == 'scheduled' then redis.call('ZREM', k.schedule, id) end
          if f[3] == 'dead' then redis.call('ZREM', k.dead, id) end
          local result = ARGV[i + 2] or ''
          finish_completed(ended, id, row, result, f[5], f[6], f[7], policy, ARGV[i + 1])
          if publish then ev_completed(id, result) end
          hist_completed(k.jobroot, id, ARGV[i + 1], policy)
          done = done + 1
          seen[id] = true
          code = 1
        end
      end
    end
    out[#out + 1] = code
  end
  -- leave_active for the flat members, one ZREM for all: a member that was not active (reaped, its
  -- token still matching) sits in pending instead (I1), and only then is pending touched at all.
  if #flat > 0 and zrem_all(k.active, flat) < #flat then zrem_all(k.pending, flat) end
  retain_flush(ended, policy)
  if done > 0 then redis.call('HINCRBY', k.completed, 'count', done) end
  per_minute(k.completed, done)
  return out
end
