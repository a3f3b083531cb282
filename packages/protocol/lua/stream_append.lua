-- @script stream_append
-- @purpose [TS] Append records to a stream log under a publish deduplication window (bus.md §2.2, as
-- JetStream's message-id window): each record carries a message id; one whose id was appended within
-- the window is not written and answers the EVT id it was first appended under. The window of an id
-- runs from its first append, by the server's clock; a duplicate does not extend it. Every record of
-- a call is decided in the same step, so two writers racing on one id cannot both land it. A record
-- whose XADD the server refuses (a non-monotonic id) is reported and the rest still go.
-- @key stream     emq:{q}:stream:<stream>
-- @key msgids     emq:{q}:stream:<stream>:msgids
-- @key until      emq:{q}:stream:<stream>:msgids:until
-- @arg window_ms  how long a message id is remembered after its first append, > 0
-- @args records   per record: msgid, xid, field count n, then n field/value items (the `id` field first)
-- @returns per record, in order: {'ok'} appended; {'dup', first EVT id} a duplicate, not written;
-- {'err', message} the server refused its XADD
local stream = k_stream
local msgids = k_msgids
local untilKey = k_until
local window = tonumber(a_window_ms)
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
-- Ids whose window ended are forgotten a slice at a time, so no call pays for a long backlog.
local expired = redis.call('ZRANGEBYSCORE', untilKey, '-inf', now, 'LIMIT', 0, 100)
if #expired > 0 then
  redis.call('HDEL', msgids, unpack(expired))
  redis.call('ZREM', untilKey, unpack(expired))
end
local out = {}
local i = 2
while i <= #ARGV do
  local msgid, xid, n = ARGV[i], ARGV[i + 1], tonumber(ARGV[i + 2])
  local fields = { unpack(ARGV, i + 3, i + 2 + n) }
  i = i + 3 + n
  local first = redis.call('HGET', msgids, msgid)
  local live = first and tonumber(redis.call('ZSCORE', untilKey, msgid) or '0') > now
  if live then
    out[#out + 1] = { 'dup', first }
  else
    local added = redis.pcall('XADD', stream, xid, unpack(fields))
    if type(added) == 'table' and added.err then
      out[#out + 1] = { 'err', added.err }
    else
      -- fields[2] is the record's EVT id: the caller puts the `id` field first.
      redis.call('HSET', msgids, msgid, fields[2])
      redis.call('ZADD', untilKey, now + window, msgid)
      out[#out + 1] = { 'ok' }
    end
  end
end
-- Both keys outlive every id they hold, and go when appends with ids stop.
if redis.call('PTTL', msgids) < window then redis.call('PEXPIRE', msgids, window) end
if redis.call('PTTL', untilKey) < window then redis.call('PEXPIRE', untilKey, window) end
return out
