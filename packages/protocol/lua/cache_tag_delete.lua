-- @script cache_tag_delete
-- @purpose [TS] Delete the entries of a tag and announce the delete on the coherence log, in one step. The
-- caller read the tag's set first; only keys still in it go, and an entry tagged since is newer and stays.
-- @key log        ecc:{t}:log
-- @key tag        ecc:{t}:tag:<tag>
-- @keys entries   ecc:{t}:k:<key> the entries the caller read from the tag's set
-- @arg version    the delete's 14-byte version
-- @arg maxlen     the log's approximate bound
-- @args names     the entries' keys, one per trailing key
-- @include core
-- @returns how many entries were deleted
local names = {}
for i = 3, #KEYS do
  local name = ARGV[i]
  if redis.call('SISMEMBER', KEYS[2], name) == 1 then
    names[#names + 1] = name
    redis.call('DEL', KEYS[i])
    redis.call('SREM', KEYS[2], name)
  end
end
if redis.call('SCARD', KEYS[2]) == 0 then redis.call('DEL', KEYS[2]) end
if #names > 0 then
  redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[2], '*', 'v', ARGV[1], 'o', 'd', 'k', table.concat(names, '\n'))
end
return #names
