-- @script bclaim
-- @purpose Lease up to `size` of the oldest pending jobs in one step, all under one deadline
-- (queue.md §7). Each member gets its own token and is settled on its own.
-- @key pending    emq:{q}:pending
-- @key active     emq:{q}:active
-- @key meta       emq:{q}:meta
-- @key jobroot    emq:{q}:job:
-- @arg lease_ms   lease length in ms, from server now
-- @arg size       most jobs to claim (>= 1)
-- @args marker     optional marker TTL in ms [TS]: writes each member's job:<id>:lock in the same step
-- @include core lease
-- @returns a list of {id, payload, attempts, parent, parent_queue, parent_policy} in mint order;
-- its length is min(size, depth), or empty when paused
if redis.call('HEXISTS', KEYS[3], 'paused') == 1 then return {} end
local size = tonumber(ARGV[2])
local marker = tonumber(ARGV[3] or '0') or 0
local popped = redis.call('ZPOPMIN', KEYS[1], size)
local out = {}
if #popped == 0 then return out end
local deadline = now_ms() + tonumber(ARGV[1])
for i = 1, #popped, 2 do
  local id = popped[i]
  local attempts, f = lease_job(KEYS[2], KEYS[4], id, deadline, marker,
    'payload', 'parent', 'parent_queue', 'parent_policy')
  if attempts then out[#out + 1] = { id, f[1], attempts, f[2], f[3], f[4] } end
end
return out
