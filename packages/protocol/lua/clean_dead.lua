-- @script clean_dead
-- @purpose [TS] Delete the given dead jobs with their rows and sub-keys: the bounded clean of the
-- morgue. The host picks the ids (oldest first, by age); an id no longer in the dead set (it was
-- reprocessed or removed meanwhile) is left alone, so a clean never deletes a live job.
-- @key dead       emq:{q}:dead
-- @key jobroot    emq:{q}:job:
-- @args ids       the dead job ids to delete
-- @include core
-- @returns the number of jobs deleted
local n = 0
for _, id in ipairs(ARGV) do
  if vid(id) and redis.call('ZREM', KEYS[1], id) == 1 then
    redis.call('DEL', jkey(KEYS[2], id), jkey(KEYS[2], id, ':logs'), jkey(KEYS[2], id, ':lock'),
      jkey(KEYS[2], id, ':dependencies'), jkey(KEYS[2], id, ':processed'), jkey(KEYS[2], id, ':failed'),
      jkey(KEYS[2], id, ':unsuccessful'))
    n = n + 1
  end
end
return n
