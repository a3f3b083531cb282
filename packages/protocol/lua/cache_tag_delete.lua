-- @script cache_tag_delete
-- @purpose [TS] Delete the entries of a tag and announce the delete on the coherence log, in one step. The
-- caller read the tag's fields first; an entry goes only while it still carries the tag: its stored frame
-- is the write that tagged it (a later write without the tag, a delete or an expiry leave the field stale,
-- and a stale field is dropped without touching the entry). An entry tagged since the read is not named.
-- @key log        ecc:{t}:log
-- @key tag        ecc:{t}:tag:<tag> a hash of entry key -> the version that carried the tag
-- @keys entries   ecc:{t}:k:<key> the entries the caller read from the tag's hash
-- @arg version    the delete's 14-byte version
-- @arg maxlen     the log's approximate bound
-- @args names     the entries' keys, one per trailing key
-- @include core
-- @returns how many entries were deleted
local names = {}
for i = 3, #KEYS do
  local name = ARGV[i]
  local tagged = redis.call('HGET', k_tag, name)
  if tagged then
    local stored = redis.call('GET', KEYS[i])
    if stored and string.sub(stored, 1, 14) == tagged then
      names[#names + 1] = name
      redis.call('DEL', KEYS[i])
    end
    redis.call('HDEL', k_tag, name)
  end
end
if #names > 0 then
  redis.call('XADD', k_log, 'MAXLEN', '~', a_maxlen, '*', 'v', a_version, 'o', 'd', 'k', table.concat(names, '\n'))
end
return #names
