-- @lib fanout
-- @purpose [TS] How a parent's leaf children in its own queue land in the step that counts them
-- (add_children, adopt_children): the collision check first, so a refused call writes nothing, then
-- each child pending and linked. Needs events (the `waiting` announcements).

-- leaves_taken(first, n): the KEYS index before the first child row, and the child count. Answers
-- true when a child id already names a row (I7: overwriting it would reset its token).
local function leaves_taken(first, n)
  for i = 1, n do
    if redis.call('EXISTS', KEYS[first + i]) == 1 then return true end
  end
  return false
end

-- land_leaves(first, at, n, pending, pid): child i's row is KEYS[first + i] and its id, payload and
-- policy are ARGV[at + 3i - 2 .. at + 3i]; each lands pending at score 0, linked to `pid`, and is
-- announced `waiting` when the queue's meta `events` = all (the caller opened its events).
local function land_leaves(first, at, n, pending, pid)
  for i = 1, n do
    local base = at + 3 * (i - 1)
    redis.call('HSET', KEYS[first + i], 'state', 'pending', 'attempts', '0', 'payload', ARGV[base + 1],
      'parent', pid, 'parent_policy', ARGV[base + 2])
    redis.call('ZADD', pending, 0, ARGV[base])
  end
  if n > 0 and ev_chatty_on() then
    for i = 1, n do ev_emit('waiting', ARGV[at + 3 * (i - 1)]) end
  end
end
