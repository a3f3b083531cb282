-- @lib tidy
-- @purpose [TS] What a drain (queue-wide or of one lane) does to flow parents in the same queue
-- (queue.md §8.4, §5.6): a parent waiting on drained children has its open-child count lowered by
-- them; one with no open child left is deleted too (it was waiting as well), and so on up a nested
-- tree. A parent in another queue is left as it is: a drain cannot reach its slot. Needs core.

-- tidy_tally(jr, wipe): a record of drained children per same-queue parent, in the order counts came
-- in. `wipe(id)` (optional; core's wipe_job by default) deletes a parent the drain takes with its
-- children, so a host can release what the row names as well.
local function tidy_tally(jr, wipe)
  return { jr = jr, drained = {}, parents = {}, wipe = wipe }
end

-- tidy_note(t, id): job `id` is about to be deleted; if its parent is in this queue, count it there.
local function tidy_note(t, id)
  local link = redis.call('HMGET', jkey(t.jr, id), 'parent', 'parent_queue')
  local pid, pq = link[1], link[2]
  if pid and vid(pid) and (not pq or pq == '') then
    t.drained[pid] = (t.drained[pid] or 0) + 1
    t.parents[#t.parents + 1] = pid
  end
end

-- tidy_settle(t, wc): settle the noted parents, walking up: a deleted parent counts as a drained
-- child of its own parent, and leaves the index of waiting parents `wc`. Answers how many parents
-- were deleted.
local function tidy_settle(t, wc)
  local deleted, i = 0, 1
  while i <= #t.parents do
    local pid = t.parents[i]
    local count = t.drained[pid]
    t.drained[pid] = 0
    if count > 0 and redis.call('HGET', jkey(t.jr, pid), 'state') == 'awaiting_children' then
      local left = redis.call('DECRBY', jkey(t.jr, pid, ':dependencies'), count)
      if left <= 0 then
        tidy_note(t, pid)
        if t.wipe then t.wipe(pid) else wipe_job(t.jr, pid) end
        if wc then redis.call('SREM', wc, pid) end
        deleted = deleted + 1
      end
    end
    i = i + 1
  end
  return deleted
end
