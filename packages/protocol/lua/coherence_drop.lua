-- @script coherence_drop
-- @purpose Drop an L2 frame only when a coherence message names a strictly newer version, so a late,
-- stale message never removes a newer row (cache.md §7.4).
-- @key entry      ecc:{t}:<id>
-- @arg version    the 14-byte branded version the message carries
-- @include core
-- @returns 1 dropped; 0 kept (absent, or not older)
local stored = redis.call('GET', k_entry)
if not stored then return 0 end
if #stored < 14 then
  redis.call('DEL', k_entry)
  return 1
end
-- Versions compare by their payload bytes (core's byte order, not the server's collation).
if not emq_bytes_le(string.sub(a_version, 4, 14), string.sub(stored, 4, 14)) then
  redis.call('DEL', k_entry)
  return 1
end
return 0
