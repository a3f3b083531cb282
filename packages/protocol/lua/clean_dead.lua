-- @script clean_dead
-- @purpose [TS] Delete the given dead jobs with their rows and sub-keys: the bounded clean of the
-- morgue. The host picks the ids (oldest first, by age); an id no longer in the dead set (it was
-- reprocessed or removed meanwhile) is left alone, so a clean never deletes a live job. [TS] A
-- deleted job leaves the finish-time index and releases the idempotency key its row names.
-- @key dead       emq:{q}:dead
-- @key jobroot    emq:{q}:job:
-- @key deadat     emq:{q}:dead:at [TS]: dead ids by finish time
-- @key deroot     emq:{q}:de: [TS]: the root of the idempotency keys rows name
-- @args ids       the dead job ids to delete
-- @include core retain
-- @returns the number of jobs deleted
local n = 0
for _, id in ipairs(ARGV) do
  redis.call('ZREM', k_deadat, id)
  if vid(id) and redis.call('ZREM', k_dead, id) == 1 then
    wipe_released(k_jobroot, k_deroot, id)
    n = n + 1
  end
end
return n
