-- @script stream_redrive
-- @purpose [TS] Put dead-lettered entries back in front of their group, in one step (bus.md §7.2):
-- each record's original entry is made pending again for its group (XCLAIM FORCE, delivery count
-- reset, idle since the epoch, so the next claim of any consumer takes it at once) and the record is
-- deleted. The entry keeps its id; other groups of the stream see nothing. A record whose entry was
-- trimmed away, or whose group is gone, stays where it is.
-- @key stream     emq:{q}:stream:<stream>
-- @key dead       emq:{q}:stream:<stream>:dead
-- @args ids       ids of dead-letter records (their XADD ids in the dead-letter stream)
-- @include streams
-- @returns {redriven, {dead-letter id left in place, ...}}
local stream = k_stream
local dead = k_dead
local now = redis.call('TIME')
local idle = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local redriven, left = 0, {}
for i = 1, #ARGV do
  local rec = redis.call('XRANGE', dead, ARGV[i], ARGV[i])[1]
  if rec then
    local head = dead_record(rec[2])
    local ok = false
    if head and redis.call('XRANGE', stream, head.xid, head.xid)[1] then
      local claim = redis.pcall('XCLAIM', stream, head.group, head.consumer, 0, head.xid, 'IDLE', idle, 'RETRYCOUNT', 0, 'FORCE', 'JUSTID')
      ok = type(claim) == 'table' and claim.err == nil
    end
    if ok then
      redis.call('XDEL', dead, ARGV[i])
      redriven = redriven + 1
    else
      left[#left + 1] = ARGV[i]
    end
  end
end
return { redriven, left }
