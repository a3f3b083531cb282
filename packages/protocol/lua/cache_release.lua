-- @script cache_release
-- @purpose [TS] Give back a load lease whose loader failed, and say so on the coherence log so that the
-- callers waiting in other processes retry at once instead of at the lease's expiry.
-- [TS] An entry lease (the lease frame in the entry itself) goes with one `GETDEL`; in the race where the
-- entry was no longer the caller's lease, what it held is put back (a lease frame until its deadline, a
-- value frame until its soft expiry). The log entry is written only when a caller waited on the lease.
-- @key lease      ecc:{t}:l:<key>
-- @key log        ecc:{t}:log
-- @key entry      ecc:{t}:k:<key> [TS]: the entry, whose lease frame an entry lease is
-- @arg token      the lease token the caller took
-- @arg maxlen     the log's approximate bound
-- @arg name       the entry's key
-- @arg entryLease [TS] '1' when the lease is the entry's lease frame; '0' for the lease key
-- @include core
-- @returns 1 released; 0 the lease was not the caller's
if a_entryLease == '1' then
  local old = redis.call('GETDEL', k_entry)
  if not old then return 0 end
  if string.sub(old, 1, 2) == '~L' and string.sub(old, 17) == a_token then
    if string.sub(old, 3, 3) ~= '0' then
      redis.call('XADD', k_log, 'MAXLEN', '~', a_maxlen, '*', 'v', '', 'o', 'r', 'k', a_name)
    end
    return 1
  end
  if string.sub(old, 1, 2) == '~L' then
    redis.call('SET', k_entry, old, 'PXAT', string.sub(old, 4, 16))
  else
    -- A value written after the lease was lost: put back; its expiry cannot be read after GETDEL, so
    -- it keeps its soft expiry (readers then refresh it at that time, as a write without grace).
    local expiry = tonumber(string.sub(old, 15, 27)) or 0
    if expiry == 0 then redis.call('SET', k_entry, old) else redis.call('SET', k_entry, old, 'PXAT', expiry) end
  end
  return 0
end
-- [TS] The lease key holds deadline(13) ++ token (see cache_read).
local held = redis.call('GET', k_lease)
if not held or string.sub(held, 14) ~= a_token then return 0 end
redis.call('DEL', k_lease)
redis.call('XADD', k_log, 'MAXLEN', '~', a_maxlen, '*', 'v', '', 'o', 'r', 'k', a_name)
return 1
