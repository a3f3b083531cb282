-- @lib lease
-- @purpose The lease every claim grants (queue.md §3.1, §5.2, §7): mint the next token, mark the row
-- active, score its deadline in active and, when asked, write the worker-presence marker in the
-- same step. Needs core.

-- lease_job(active, root, id, deadline, marker, ...): leases job `id` of job root `root` until
-- `deadline` (server ms). Answers nil, touching nothing, when id is not a checked id or its row is
-- gone (the caller skips it); else the new token (attempts) and the HMGET of the named row fields.
-- marker > 0 writes job:<id>:lock = token with that TTL in ms.
local function lease_job(active, root, id, deadline, marker, ...)
  if not vid(id) then return nil end
  local row = jkey(root, id)
  if redis.call('EXISTS', row) == 0 then return nil end
  local attempts = redis.call('HINCRBY', row, 'attempts', 1)
  redis.call('HSET', row, 'state', 'active')
  redis.call('ZADD', active, deadline, id)
  if marker > 0 then redis.call('SET', jkey(root, id, ':lock'), attempts, 'PX', marker) end
  return attempts, redis.call('HMGET', row, ...)
end
