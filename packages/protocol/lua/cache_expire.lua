-- @script cache_expire
-- @purpose [TS] Mark a keyed cache entry stale now but keep it for the namespace's grace (bentocache's
-- expire): the frame's soft expiry becomes the server's now and its L2 lifetime the grace (never longer
-- than it had left), and an `s` on the coherence log makes every process drop its L1 copy (the entry
-- keeps its own version, so tag deletes still find it and any later write wins). With no grace the entry
-- is deleted (`d`).
-- @key entry      ecc:{t}:k:<key>
-- @key log        ecc:{t}:log
-- @arg version    the announcement's 14-byte version, newer than the entry's
-- @arg grace      ms to keep the stale entry: the namespace's grace (a per-write grace is not in the frame)
-- @arg maxlen     the log's approximate bound
-- @arg name       the entry's key, as the log names it
-- @include core
-- @returns 0 no entry; 1 marked stale, kept for the grace; 2 deleted (no grace)
local frame = redis.call('GET', k_entry)
-- [TS] An entry lease frame is no value: nothing to expire.
if not frame or #frame < 27 or string.sub(frame, 1, 2) == '~L' then return 0 end
local keep = tonumber(a_grace)
local left = redis.call('PTTL', k_entry)
if left > 0 and left < keep then keep = left end
if keep <= 0 then
  redis.call('DEL', k_entry)
  redis.call('XADD', k_log, 'MAXLEN', '~', a_maxlen, '*', 'v', a_version, 'o', 'd', 'k', a_name)
  return 2
end
-- Frame: version(14) ++ soft expiry (13 decimal digits of Unix ms; 0 never) ++ value.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('SET', k_entry, string.sub(frame, 1, 14) .. string.format('%013d', now) .. string.sub(frame, 28), 'PX', keep)
redis.call('XADD', k_log, 'MAXLEN', '~', a_maxlen, '*', 'v', a_version, 'o', 's', 'k', a_name)
return 1
