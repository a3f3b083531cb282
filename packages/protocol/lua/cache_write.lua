-- @script cache_write
-- @purpose [TS] Write a keyed cache entry and announce it on the namespace's coherence log, in one step:
-- newer wins (a frame at least as new is kept), and a fill writes only while it holds its lease.
-- @key entry      ecc:{t}:k:<key>
-- @key lease      ecc:{t}:l:<key>
-- @key log        ecc:{t}:log
-- @keys tags      ecc:{t}:tag:<tag> the entry's tag sets: hashes of entry key -> the version that carried the tag
-- @arg frame      version(14) ++ soft expiry(13 digits) ++ value
-- @arg px         the L2 lifetime in ms (ttl + grace); 0 keeps the entry without expiry
-- @arg token      the fill's lease token; '' for a plain write
-- @arg maxlen     the log's approximate bound
-- @arg name       the entry's key, as the log and the tag sets name it
-- @arg graceMs    [TS] for an entry-lease fill ('' otherwise): the grace a refused fill gives back to a frame it
-- displaced (a frame carries its soft expiry, not its grace)
-- @include core
-- @returns 1 written; 0 refused (the lease is no longer the fill's, or a newer frame is stored)
local version = string.sub(a_frame, 1, 14)
local px = tonumber(a_px)

-- The tag sets name the entry with the version that carried each tag.
local function tag_entry()
  for i = 4, #KEYS do
    local fresh = redis.call('EXISTS', KEYS[i]) == 0
    -- The version says which write carried the tag: a later write without it leaves this field stale,
    -- and a tag delete then spares the entry (cache_tag_delete compares it with the stored frame).
    redis.call('HSET', KEYS[i], a_name, version)
    -- A tag set lives as long as its longest-lived entry.
    local left = redis.call('PTTL', KEYS[i])
    if px == 0 then
      if left >= 0 then redis.call('PERSIST', KEYS[i]) end
    elseif fresh or (left >= 0 and left < px) then
      redis.call('PEXPIRE', KEYS[i], px)
    end
  end
end

-- [TS] An entry-lease fill: the entry holds the fill's lease frame (`~L` ++ waited flag ++ deadline(13) ++
-- token), so one `SET XX GET` writes the frame and answers what it replaced. That was the fill's own lease
-- in all but a race; then the fill had lost its lease (to another lease or a newer write) and what it
-- replaced is put back: a lease frame until its deadline, a value frame until its soft expiry plus the
-- fill's grace. The log entry is written when a caller waited on the lease (it wakes them) and skipped
-- otherwise: nothing else can hold the key, which L2 did not have.
if a_graceMs ~= '' then
  local old
  if px > 0 then
    old = redis.call('SET', k_entry, a_frame, 'XX', 'PX', px, 'GET')
  else
    old = redis.call('SET', k_entry, a_frame, 'XX', 'GET')
  end
  if not old then return 0 end
  if string.sub(old, 1, 2) == '~L' and string.sub(old, 17) == a_token then
    tag_entry()
    if string.sub(old, 3, 3) ~= '0' then
      redis.call('XADD', k_log, 'MAXLEN', '~', a_maxlen, '*', 'v', version, 'o', 's', 'k', a_name)
    end
    return 1
  end
  if string.sub(old, 1, 2) == '~L' then
    redis.call('SET', k_entry, old, 'PXAT', string.sub(old, 4, 16))
    return 0
  end
  local expiry = tonumber(string.sub(old, 15, 27)) or 0
  if expiry == 0 then
    redis.call('SET', k_entry, old)
  else
    redis.call('SET', k_entry, old, 'PXAT', expiry + tonumber(a_graceMs))
  end
  return 0
end

if a_token ~= '' and redis.call('GET', k_lease) ~= a_token then return 0 end
local stored = redis.call('GET', k_entry)
-- [TS] An entry lease frame holds no version: any write replaces it (its fill is then refused).
if stored and string.sub(stored, 1, 2) == '~L' then stored = false end
if stored and #stored >= 14 and emq_bytes_le(string.sub(version, 4, 14), string.sub(stored, 4, 14)) then
  if a_token ~= '' then redis.call('DEL', k_lease) end
  return 0
end
if px > 0 then
  redis.call('SET', k_entry, a_frame, 'PX', px)
else
  redis.call('SET', k_entry, a_frame)
end
tag_entry()
if a_token ~= '' then redis.call('DEL', k_lease) end
redis.call('XADD', k_log, 'MAXLEN', '~', a_maxlen, '*', 'v', version, 'o', 's', 'k', a_name)
return 1
