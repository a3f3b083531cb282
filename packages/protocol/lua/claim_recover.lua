-- @script claim_recover
-- @purpose [TS] Finds the jobs a claim leased whose reply its worker never read (the link dropped
-- or the master died after the script ran): the rows whose `claim_ticket` is "<ticket>@<attempts>"
-- (lib lease) and that are still active under that token, so the worker runs them (or gives them
-- back) at once instead of leaving them out of reach until their lease lapses. A job re-claimed
-- since (by any runtime: the token moved on) or settled is not answered. Reads only the jobs whose
-- lease deadline is at least the lost call's: the claim ran no earlier than `since_ms` ago, and
-- leased for `lease_ms`. Changes nothing.
-- @key active     emq:{q}:active
-- @key jobroot    emq:{q}:job:
-- @arg ticket     the claim ticket the lost call carried
-- @arg since_ms   ms since the worker sent the lost call (an upper bound: measured after it failed)
-- @arg lease_ms   the lease the lost call asked for, in ms
-- @include core
-- @returns a list of {id, payload, attempts, parent, parent_queue, parent_policy, name,
-- max_attempts, backoff, timeout_ms, traceparent, tracestate, group, left_ms} (false when absent),
-- in lease-deadline order: the flat claim entry, then the lane (lane claims), then the ms the
-- lease has left
local ticket = a_ticket
local now = now_ms()
local floor = now - tonumber(a_since_ms) + tonumber(a_lease_ms)
local out = {}
if ticket == '' then return out end
local held = redis.call('ZRANGEBYSCORE', k_active, floor, '+inf', 'WITHSCORES')
for i = 1, #held, 2 do
  local id = held[i]
  if vid(id) then
    local f = redis.call('HMGET', jkey(k_jobroot, id), 'claim_ticket', 'attempts', 'state', 'payload', 'parent',
      'parent_queue', 'parent_policy', 'name', 'max_attempts', 'backoff', 'timeout_ms', 'traceparent', 'tracestate', 'group')
    if f[1] and f[3] == 'active' and f[4] and f[1] == ticket .. '@' .. (f[2] or '') then
      out[#out + 1] = { id, f[4], tonumber(f[2]), f[5], f[6], f[7], f[8], f[9], f[10], f[11], f[12], f[13], f[14],
        math.max(math.floor(tonumber(held[i + 1]) - now), 0) }
    end
  end
end
return out
