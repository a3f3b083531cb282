-- @lib fanin
-- @purpose [TS] How a parent leaves `awaiting_children` (queue.md §11.4–§11.6) in one place, so the
-- index of waiting parents (emq:{q}:waiting-children) stays exact and a parent keeps its priority.
-- Needs lanes (flat_score).

-- Parents this call released, in order, so a script that publishes events (lib events) can announce
-- each one's `waiting` once its own events are open; fanin itself never publishes.
local FANIN_RELEASED = {}

-- release_parent(prow, pending, wc, pid, wakekey): the parent's last open child settled. It re-enters
-- pending at its own score (-priority) and leaves the index; `wakekey` (optional) wakes one parked
-- consumer. `wc` may be nil for a caller that did not declare the index (an older host).
local function release_parent(prow, pending, wc, pid, wakekey)
  redis.call('ZADD', pending, flat_score(prow), pid)
  redis.call('HSET', prow, 'state', 'pending')
  if wc then redis.call('SREM', wc, pid) end
  FANIN_RELEASED[#FANIN_RELEASED + 1] = pid
  if wakekey then
    redis.call('LPUSH', wakekey, '1')
    redis.call('LTRIM', wakekey, 0, 63)
  end
end

-- count_down(deps, prow, pending, wc, pid, n, wakekey): n children of a parent settled for it; at
-- zero open children a parent still waiting is released. The state guard keeps a parent a
-- fail-parent sibling killed (or one still running its step) where it is. Answers what is left.
local function count_down(deps, prow, pending, wc, pid, n, wakekey)
  local left = redis.call('DECRBY', deps, n)
  if left <= 0 and redis.call('HGET', prow, 'state') == 'awaiting_children' then
    release_parent(prow, pending, wc, pid, wakekey)
  end
  return left
end

-- Parents this call killed, in order, so a script that publishes events (lib events) can announce
-- each one's `failed` [TS]; fanin itself never publishes.
local FANIN_FAILED = {}

-- fail_parent_row(prow, pending, dead, wc, pid, cid, cqueue): a fail-parent child died; its parent
-- dies with it. [TS] The parent's `last_error` names the child that killed it, "child <cqueue>:<cid>
-- failed"; without `cqueue` (a child of the parent's own queue) the queue is the one the parent's
-- row key names (read as text, never used to build a key). The parent joins FANIN_FAILED.
local function fail_parent_row(prow, pending, dead, wc, pid, cid, cqueue)
  if not cqueue or cqueue == '' then cqueue = string.match(prow, '^emq:{(.-)}:') or '' end
  redis.call('HSET', prow, 'last_error', 'child ' .. cqueue .. ':' .. cid .. ' failed')
  FANIN_FAILED[#FANIN_FAILED + 1] = pid
  redis.call('HSET', prow, 'state', 'dead')
  redis.call('ZREM', pending, pid)
  redis.call('ZADD', dead, 0, pid)
  if wc then redis.call('SREM', wc, pid) end
end

-- [TS] continue_parent(prow, pending, wc, pid, wakekey): a continue-parent (`cp`) child died and was
-- counted down; its parent runs now, its other children still open, when it still waits on them.
-- Siblings that settle later find it out of `awaiting_children` (count_down's guard) or gone.
local function continue_parent(prow, pending, wc, pid, wakekey)
  if redis.call('HGET', prow, 'state') == 'awaiting_children' then release_parent(prow, pending, wc, pid, wakekey) end
end
