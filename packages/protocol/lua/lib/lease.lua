-- @lib lease
-- @purpose The lease every claim grants (queue.md §3.1, §5.2, §7): mint the next token, mark the row
-- active, score its deadline in active and, when asked, write the worker-presence marker in the
-- same step. Needs core and [TS] expire (a row past its `expire_at` is settled, not leased).

-- [TS] The per-job option fields a claim reads with the row and answers after the spec's fields:
-- the options, then the producer's W3C trace context (traceparent, tracestate).
local JOB_OPTIONS = { 'name', 'max_attempts', 'backoff', 'timeout_ms', 'traceparent', 'tracestate' }

-- [TS] The claim ticket of this call: a worker-chosen name it sends with each claim, kept on each
-- leased row as `claim_ticket` = "<ticket>@<token>" in the same HSET as the token (no command of
-- its own). When the claim's reply is cut off, claim_recover finds the jobs by it. "" writes none.
-- retry, delay, reprocess and give_back delete it as the row leaves active, so a settled row has the
-- spec's fields; a reaped row keeps it until its next claim (inert: the token it names moved on).
local lease_ticket = ''

-- lease_ticket_set(t): the ticket every lease of this call writes ('' or nil: none).
local function lease_ticket_set(t)
  lease_ticket = t or ''
end

-- lease_row(root, id, marker, ...): the row half of a lease on job `id` of job root `root`. Answers
-- nil, touching nothing, when id is not a checked id or its row is gone (the caller skips it); else
-- the new token (attempts) and the named row fields, read before the write. One HMGET reads the
-- token and the fields together and one HSET writes the token and the state: the same effect as
-- HINCRBY attempts 1 then HSET state active (queue.md §3.1 steps 3-4), as the script is atomic. The
-- first named field must be one every creation writes (payload), so a row without it is gone.
-- [TS] The same HMGET reads `expire_at`: a row past it is settled as expired (lib expire) and
-- answers nil like a gone one, so a job without a deadline costs no extra command.
-- marker > 0 writes job:<id>:lock = token with that TTL in ms.
local function lease_row(root, id, marker, ...)
  if not vid(id) then return nil end
  local row = jkey(root, id)
  local f = redis.call('HMGET', row, 'attempts', 'expire_at', ...)
  if not f[1] and not f[3] then return nil end
  if f[2] and expire_due(root, id, row, f[2]) then return nil end
  local attempts = (tonumber(f[1]) or 0) + 1
  if lease_ticket == '' then
    redis.call('HSET', row, 'attempts', attempts, 'state', 'active')
  else
    redis.call('HSET', row, 'attempts', attempts, 'state', 'active', 'claim_ticket', lease_ticket .. '@' .. attempts)
  end
  if marker > 0 then redis.call('SET', jkey(root, id, ':lock'), attempts, 'PX', marker) end
  table.remove(f, 1)
  table.remove(f, 1)
  return attempts, f
end

-- lease_job(active, root, id, deadline, marker, ...): lease_row, then the job's deadline in active.
local function lease_job(active, root, id, deadline, marker, ...)
  local attempts, f = lease_row(root, id, marker, ...)
  if attempts then redis.call('ZADD', active, deadline, id) end
  return attempts, f
end

-- lease_popped(active, root, popped, lease, marker): leases the ids of a ZPOPMIN reply (id, score,
-- ...) under one deadline, with one ZADD for all of them, and answers the flat claim entries
-- {id, payload, attempts, parent, parent_queue, parent_policy, name, max_attempts, backoff,
-- timeout_ms, traceparent, tracestate} in pop order (absent fields are false, so the host needs no
-- second read; the last six are the [TS] per-job fields, after the spec's six). Skipped ids are dropped.
local function lease_popped(active, root, popped, lease, marker)
  local out = {}
  if #popped == 0 then return out end
  local deadline = now_ms() + lease
  local scored = {}
  for i = 1, #popped, 2 do
    local id = popped[i]
    local attempts, f = lease_row(root, id, marker, 'payload', 'parent', 'parent_queue', 'parent_policy', unpack(JOB_OPTIONS))
    if attempts then
      out[#out + 1] = { id, f[1], attempts, f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9], f[10] }
      scored[#scored + 1] = deadline
      scored[#scored + 1] = id
      -- Lua's unpack is bounded by its C stack; score the members in slices well below it.
      if #scored >= 2000 then
        redis.call('ZADD', active, unpack(scored))
        scored = {}
      end
    end
  end
  if #scored > 0 then redis.call('ZADD', active, unpack(scored)) end
  return out
end

-- lease_pop(active, root, set, n, lease, marker): ZPOPMIN up to `n` ids from `set` and lease them as
-- lease_popped does; [TS] when some were skipped (gone, or settled as expired by lib expire), pops
-- again for as many, so a batch is not cut short by dead wood. With nothing skipped it is one ZPOPMIN.
local function lease_pop(active, root, set, n, lease, marker)
  local out = {}
  local want = n
  while want > 0 do
    local popped = redis.call('ZPOPMIN', set, want)
    for _, e in ipairs(lease_popped(active, root, popped, lease, marker)) do out[#out + 1] = e end
    -- A short pop means the set ran out; otherwise pop again only for the ids skipped.
    if #popped < 2 * want then break end
    want = n - #out
  end
  return out
end
