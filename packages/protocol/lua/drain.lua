-- @script drain
-- @purpose Delete every waiting job (and, when declared, every scheduled one) with its row and
-- sub-keys; active jobs and repeat registrations are untouched (queue.md §8.4).
-- @key jobroot    emq:{q}:job:
-- @key pending    emq:{q}:pending
-- @keys schedule  optional emq:{q}:schedule; drained only when declared
-- @include core
-- @returns the number of jobs deleted
local function purge(set)
  local n = 0
  for _, id in ipairs(redis.call('ZRANGE', set, 0, -1)) do
    if vid(id) then
      redis.call('DEL', jkey(KEYS[1], id), jkey(KEYS[1], id, ':logs'), jkey(KEYS[1], id, ':lock'),
        jkey(KEYS[1], id, ':dependencies'), jkey(KEYS[1], id, ':processed'), jkey(KEYS[1], id, ':failed'),
        jkey(KEYS[1], id, ':unsuccessful'))
      n = n + 1
    end
  end
  redis.call('DEL', set)
  return n
end
local deleted = purge(KEYS[2])
if KEYS[3] then deleted = deleted + purge(KEYS[3]) end
return deleted
