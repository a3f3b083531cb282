-- @script drain
-- @purpose Delete every waiting job (and, when declared, every scheduled one) with its row and
-- sub-keys; active jobs and repeat registrations are untouched (queue.md §8.4). [TS] A flow parent
-- in this queue waiting on drained children is not left stuck: its open-child count drops by the
-- children drained; a parent with no open child left is deleted too (it was waiting as well), and
-- so on up a nested tree; one with children still active or elsewhere runs when those finish. A
-- parent in another queue is left as it is: this script cannot reach its slot. [TS] Each deleted
-- job releases the idempotency key its row names.
-- @key jobroot    emq:{q}:job:
-- @key pending    emq:{q}:pending
-- @key deroot     emq:{q}:de: [TS]: the root of the idempotency keys rows name
-- @keys schedule  optional emq:{q}:schedule; drained only when declared
-- @include core retain
-- @returns the number of jobs deleted
local function wipe(id)
  wipe_released(KEYS[1], KEYS[3], id)
end

-- drained[pid]: children of pid (a parent in this queue) deleted and not yet taken off its count;
-- parents: the ids to settle, in the order their counts came in (an id may appear more than once).
local drained, parents = {}, {}
local function note_parent(id)
  local link = redis.call('HMGET', jkey(KEYS[1], id), 'parent', 'parent_queue')
  local pid, pq = link[1], link[2]
  if pid and vid(pid) and (not pq or pq == '') then
    drained[pid] = (drained[pid] or 0) + 1
    parents[#parents + 1] = pid
  end
end

local function purge(set)
  local n = 0
  for _, id in ipairs(redis.call('ZRANGE', set, 0, -1)) do
    if vid(id) then
      note_parent(id)
      wipe(id)
      n = n + 1
    end
  end
  redis.call('DEL', set)
  return n
end
local deleted = purge(KEYS[2])
if KEYS[4] then deleted = deleted + purge(KEYS[4]) end

-- Settle the parents, walking up: a deleted parent counts as a drained child of its own parent.
local i = 1
while i <= #parents do
  local pid = parents[i]
  local count = drained[pid]
  drained[pid] = 0
  if count > 0 and redis.call('HGET', jkey(KEYS[1], pid), 'state') == 'awaiting_children' then
    local left = redis.call('DECRBY', jkey(KEYS[1], pid, ':dependencies'), count)
    if left <= 0 then
      note_parent(pid)
      wipe(pid)
      deleted = deleted + 1
    end
  end
  i = i + 1
end
return deleted
