-- @script cache_write
-- @purpose [TS] Write a keyed cache entry and announce it on the namespace's coherence log, in one step:
-- newer wins (a frame at least as new is kept), and a fill writes only while it holds its lease.
-- @key entry      ecc:{t}:k:<key>
-- @key lease      ecc:{t}:l:<key> [TS] deadline(13) ++ token (see cache_read)
-- @key log        ecc:{t}:log
-- @keys tags      ecc:{t}:tag:<tag> the entry's tag sets: hashes of entry key -> the version that carried the tag
-- @arg frame      version(14) ++ soft expiry(13 digits) ++ value
-- @arg px         the L2 lifetime in ms (ttl + grace); 0 keeps the entry without expiry
-- @arg token      the fill's lease token; '' for a plain write
-- @arg maxlen     the log's approximate bound
-- @arg name       the entry's key, as the log and the tag sets name it
-- @arg graceMs    [TS] the grace (ms) a refused write gives back to a newer frame it displaced (a frame carries its
-- soft expiry, not its grace)
-- @arg lease      [TS] '1' for an entry-lease fill (the entry holds the fill's lease frame); '0' otherwise
-- @include core
-- @returns 1 written; 0 refused (the lease is no longer the fill's, or a newer frame is stored)
local version = string.sub(a_frame, 1, 14)
local px = tonumber(a_px)
local grace = tonumber(a_graceMs) or 0

-- [TS] Puts back a value frame the write displaced but may not replace: until its soft expiry plus `grace`.
local function restore(old)
  local expiry = tonumber(string.sub(old, 15, 27)) or 0
  if expiry == 0 then
    redis.call('SET', k_entry, old)
  else
    redis.call('SET', k_entry, old, 'PXAT', expiry + grace)
  end
end

-- One `SET … GET`: writes the frame and answers what it replaced. Each form spelled out, so the key
-- law's static read sees the declared key in every call.
local function swap(condition)
  if condition then
    if px > 0 then return redis.call('SET', k_entry, a_frame, condition, 'PX', px, 'GET') end
    return redis.call('SET', k_entry, a_frame, condition, 'GET')
  end
  if px > 0 then return redis.call('SET', k_entry, a_frame, 'PX', px, 'GET') end
  return redis.call('SET', k_entry, a_frame, 'GET')
end

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
if a_lease == '1' then
  local old = swap('XX')
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
  restore(old)
  return 0
end

-- [TS] A plain write: one `SET … GET`, and a newer frame it displaced is put back (newer wins). An entry lease
-- frame holds no version: the write replaces it (its fill is then refused).
if a_token == '' then
  local old = swap(nil)
  if old and string.sub(old, 1, 2) ~= '~L' and #old >= 14 and emq_bytes_le(string.sub(version, 4, 14), string.sub(old, 4, 14)) then
    restore(old)
    return 0
  end
  tag_entry()
  redis.call('XADD', k_log, 'MAXLEN', '~', a_maxlen, '*', 'v', version, 'o', 's', 'k', a_name)
  return 1
end

-- [TS] A refresh under the lease key (deadline(13) ++ token): one `GETDEL` checks the lease and gives it back,
-- and a lease that was not the fill's is put back until its own deadline. The write is then one `SET … GET`,
-- as a plain write's: a newer frame it displaced is put back and the fill is refused.
local held = redis.call('GETDEL', k_lease)
if not held then return 0 end
if string.sub(held, 14) ~= a_token then
  redis.call('SET', k_lease, held, 'PXAT', string.sub(held, 1, 13))
  return 0
end
local old = swap(nil)
if old and string.sub(old, 1, 2) ~= '~L' and #old >= 14 and emq_bytes_le(string.sub(version, 4, 14), string.sub(old, 4, 14)) then
  restore(old)
  return 0
end
tag_entry()
redis.call('XADD', k_log, 'MAXLEN', '~', a_maxlen, '*', 'v', version, 'o', 's', 'k', a_name)
return 1
