-- @script cache_delete
-- @purpose [TS] Delete keyed cache entries and announce the delete on the coherence log, in one step.
-- @key log        ecc:{t}:log
-- @keys entries   ecc:{t}:k:<key> the entries (on clear: any key of the namespace, deleted quietly)
-- @arg version    the delete's 14-byte version
-- @arg maxlen     the log's approximate bound
-- @arg announce   '1' writes the log entry; '0' deletes quietly (the batches after a clear)
-- @args names     the entries' keys, one per trailing key
-- @include core
-- @returns how many keys existed and were deleted
local deleted = 0
local names = {}
for i = 2, #KEYS do
  deleted = deleted + redis.call('DEL', KEYS[i])
  names[#names + 1] = ARGV[i + 2]
end
if a_announce == '1' and #names > 0 then
  redis.call('XADD', k_log, 'MAXLEN', '~', a_maxlen, '*', 'v', a_version, 'o', 'd', 'k', table.concat(names, '\n'))
end
return deleted
