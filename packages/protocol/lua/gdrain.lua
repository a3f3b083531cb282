-- @script gdrain
-- @purpose Delete every waiting job of one lane with its row and sub-keys, then the lane and its ring
-- entry (queue.md §5.6). In-flight jobs, counters, settings and other lanes are untouched.
-- @key lane       emq:{q}:g:<g>:pending
-- @key ring       emq:{q}:ring
-- @key jobroot    emq:{q}:job:
-- @arg g          the group's branded id (the lane's own)
-- @include core
-- @returns the number of jobs deleted
-- @error EMQKIND group id must be a branded id
if not vid(ARGV[1]) then return redis.error_reply('EMQKIND group id must be a branded id') end
local JR = KEYS[3]
local n = 0
for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  if vid(id) then
    redis.call('DEL', jkey(JR, id), jkey(JR, id, ':logs'), jkey(JR, id, ':lock'), jkey(JR, id, ':dependencies'),
      jkey(JR, id, ':processed'), jkey(JR, id, ':failed'), jkey(JR, id, ':unsuccessful'))
    n = n + 1
  end
end
redis.call('DEL', KEYS[1])
redis.call('LREM', KEYS[2], 0, ARGV[1])
return n
