-- @script drain
-- @purpose Delete every waiting job (and, when declared, every scheduled one) with its row and
-- sub-keys; active jobs and repeat registrations are untouched (queue.md §8.4). [TS] A flow parent
-- in this queue waiting on drained children is not left stuck: its open-child count drops by the
-- children drained; a parent with no open child left is deleted too (it was waiting as well, and it
-- leaves the index of waiting parents), and so on up a nested tree; one with children still active
-- or elsewhere runs when those finish. A parent in another queue is left as it is: this script
-- cannot reach its slot. [TS] Each deleted job releases the idempotency key its row names.
-- @key jobroot    emq:{q}:job:
-- @key pending    emq:{q}:pending
-- @key waiting    emq:{q}:waiting-children [TS]
-- @key deroot     emq:{q}:de: [TS]: the root of the idempotency keys rows name
-- @keys schedule  optional emq:{q}:schedule; drained only when declared
-- @include core tidy retain
-- @returns the number of jobs deleted
local function wipe(id)
  wipe_released(k_jobroot, k_deroot, id)
end
local tally = tidy_tally(k_jobroot, wipe)

local function purge(set)
  local n = 0
  for _, id in ipairs(redis.call('ZRANGE', set, 0, -1)) do
    if vid(id) then
      tidy_note(tally, id)
      wipe(id)
      n = n + 1
    end
  end
  redis.call('DEL', set)
  return n
end
local deleted = purge(k_pending)
if k_schedule then deleted = deleted + purge(k_schedule) end
return deleted + tidy_settle(tally, k_waiting)
