-- @script cache_pull
-- @purpose [TS] Read a keyed cache entry and delete it in one step (bentocache's pull), announcing the
-- delete on the coherence log so every other process drops its L1 copy. The announcement is written
-- whether or not L2 held the entry: an L1 elsewhere may still hold one L2 no longer has.
-- @key entry      ecc:{t}:k:<key>
-- @key log        ecc:{t}:log
-- @arg version    the delete's 14-byte version
-- @arg maxlen     the log's approximate bound
-- @arg name       the entry's key, as the log names it
-- @arg hex        '1' answers the frame hex-encoded (binary codecs: script replies arrive as UTF-8 text)
-- @include core
-- @returns the frame that was deleted (fresh or in grace; hex when asked), or nil when there was none
local frame = redis.call('GETDEL', k_entry)
redis.call('XADD', k_log, 'MAXLEN', '~', a_maxlen, '*', 'v', a_version, 'o', 'd', 'k', a_name)
-- [TS] An entry lease frame is no value (the fill it belonged to is then refused).
if not frame or string.sub(frame, 1, 2) == '~L' then return false end
if a_hex == '1' then
  frame = string.gsub(frame, '.', function(c) return string.format('%02x', string.byte(c)) end)
end
return frame
