-- @script extend_locks
-- @purpose Extend many leases under one server time, skipping each id that is gone, stale or no
-- longer active (queue.md §6.3); a worker's heartbeat for everything it holds.
-- @key active     emq:{q}:active
-- @key jobroot    emq:{q}:job:
-- @arg lease_ms   the new lease, from server now
-- @arg marker_ms  [TS] when > 0, each extended job's worker-presence marker :lock is pushed out to
-- this many ms in the same step, so the lock plane's beat writes nothing itself; "" or 0: none
-- @args pairs     id1, token1, id2, token2, ...
-- @include core
-- @returns the ids NOT extended, in input order
local deadline = now_ms() + tonumber(a_lease_ms)
local marker = tonumber(a_marker_ms) or 0
local missed = {}
for i = 3, #ARGV, 2 do
  local id = ARGV[i]
  local ok = false
  if vid(id) then
    local attempts = redis.call('HGET', jkey(k_jobroot, id), 'attempts')
    if attempts and attempts == ARGV[i + 1] and redis.call('ZSCORE', k_active, id) then
      redis.call('ZADD', k_active, deadline, id)
      if marker > 0 then redis.call('PEXPIRE', jkey(k_jobroot, id, ':lock'), marker) end
      ok = true
    end
  end
  if not ok then missed[#missed + 1] = id end
end
return missed
