-- @script cache_read
-- @purpose [TS] Read a keyed cache entry and, when it is missing or past its soft expiry, take the key's
-- load lease in the same step, so exactly one caller across every process runs the loader.
-- [TS] With `deadline` set (the entry lease), the read is one `SET NX GET` on the entry itself: a missing
-- entry becomes a lease frame (`~L` ++ waited flag ++ deadline(13) ++ token) that expires at `deadline`,
-- so the miss, the lease and (for a frame that exists) the value cost the server one command. A caller
-- that finds another's lease frame marks it waited, so the fill's write announces itself.
-- @key entry      ecc:{t}:k:<key>
-- @key lease      ecc:{t}:l:<key> [TS] deadline(13 digits, Unix ms) ++ the holder's token, expiring at that deadline
-- @arg token      the caller's lease token; '' reads without asking for the lease
-- @arg leaseMs    the lease's lifetime in ms
-- @arg hex        '1' answers the frame hex-encoded (binary codecs: script replies arrive as UTF-8 text)
-- @arg deadline   [TS] '' for the lease key; else the entry lease's end, Unix ms (13 digits)
-- @include core
-- @returns {status, frame|nil, pttl}: 1 fresh frame; 2 the lease is the caller's (frame: a stale one,
-- for grace); 3 another caller holds the lease for pttl ms more; 0 no fresh frame and no lease asked;
-- [TS] 4 (entry lease) a frame, fresh or not, that the caller judges by its soft expiry
local function out_of(frame)
  if frame and a_hex == '1' then
    return (string.gsub(frame, '.', function(c) return string.format('%02x', string.byte(c)) end))
  end
  return frame
end
if a_deadline ~= '' then
  local lease = '~L0' .. a_deadline .. a_token
  local old = redis.call('SET', k_entry, lease, 'NX', 'PXAT', a_deadline, 'GET')
  if not old then return {2, false, 0} end
  if string.sub(old, 1, 2) ~= '~L' then return {4, out_of(old), 0} end
  -- Another caller's lease: say its end (the frame carries it), and mark it waited.
  if string.sub(old, 3, 3) == '0' then redis.call('SET', k_entry, '~Lw' .. string.sub(old, 4), 'KEEPTTL') end
  return {3, false, tonumber(string.sub(old, 4, 16)) or 0}
end
local frame = redis.call('GET', k_entry)
-- [TS] An entry lease is no value: another caller is loading it.
if frame and string.sub(frame, 1, 2) == '~L' then
  if a_token == '' then return {0, false, 0} end
  if string.sub(frame, 3, 3) == '0' then redis.call('SET', k_entry, '~Lw' .. string.sub(frame, 4), 'KEEPTTL') end
  return {3, false, redis.call('PTTL', k_entry)}
end
local out = out_of(frame)
local now
local function clock()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
if frame and #frame >= 27 then
  -- Frame: version(14) ++ soft expiry (13 decimal digits of Unix ms; 0 never) ++ value.
  local expiry = tonumber(string.sub(frame, 15, 27)) or 0
  now = clock()
  if expiry == 0 or expiry > now then return {1, out, 0} end
end
if a_token == '' then return {0, out or false, 0} end
-- [TS] The lease key holds its own end ahead of the token (deadline(13) ++ token), so the fill's write
-- can take it back with one `GETDEL` and put back, until that end, a lease that was not its own.
local until_ms = (now or clock()) + tonumber(a_leaseMs)
if redis.call('SET', k_lease, string.format('%013d', until_ms) .. a_token, 'NX', 'PXAT', until_ms) then return {2, out or false, 0} end
return {3, out or false, redis.call('PTTL', k_lease)}
