-- @script clean_completed
-- @purpose [TS] Delete the given retained completed jobs with their rows and sub-keys: the bounded
-- clean of the completed index. The host picks the ids (oldest finished first); an id whose row is
-- no longer a completed job only leaves the index, so a clean never deletes a live job.
-- @key retained   emq:{q}:completed
-- @key jobroot    emq:{q}:job:
-- @args ids       the completed job ids to delete
-- @include core retain
-- @returns the number of jobs deleted
local n = 0
for _, id in ipairs(ARGV) do
  redis.call('ZREM', k_retained, id)
  if vid(id) and redis.call('HGET', jkey(k_jobroot, id), 'state') == 'completed' then
    wipe_job(k_jobroot, id)
    n = n + 1
  end
end
return n
