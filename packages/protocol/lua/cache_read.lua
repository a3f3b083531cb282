-- @script cache_read
-- @purpose [TS] Read a keyed cache entry and, when it is missing or past its soft expiry, take the key's
-- load lease in the same step, so exactly one caller across every process runs the loader.
-- @key entry      ecc:{t}:k:<key>
-- @key lease      ecc:{t}:l:<key>
-- @arg token      the caller's lease token; '' reads without asking for the lease
-- @arg leaseMs    the lease's lifetime in ms
-- @arg hex        '1' answers the frame hex-encoded (binary codecs: script replies arrive as UTF-8 text)
-- @include core
-- @returns {status, frame|nil, pttl}: 1 fresh frame; 2 the lease is the caller's (frame: a stale one,
-- for grace); 3 another caller holds the lease for pttl ms more; 0 no fresh frame and no lease asked
local frame = redis.call('GET', k_entry)
local out = frame
if frame and a_hex == '1' then
  out = string.gsub(frame, '.', function(c) return string.format('%02x', string.byte(c)) end)
end
if frame and #frame >= 27 then
  -- Frame: version(14) ++ soft expiry (13 decimal digits of Unix ms; 0 never) ++ value.
  local expiry = tonumber(string.sub(frame, 15, 27)) or 0
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  if expiry == 0 or expiry > now then return {1, out, 0} end
end
if a_token == '' then return {0, out or false, 0} end
if redis.call('SET', k_lease, a_token, 'NX', 'PX', a_leaseMs) then return {2, out or false, 0} end
return {3, out or false, redis.call('PTTL', k_lease)}
