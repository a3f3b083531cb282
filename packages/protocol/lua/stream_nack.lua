-- @script stream_nack
-- @purpose [TS] Put entries of a consumer group back for redelivery no sooner than a delay, without
-- counting a delivery (bus.md §7): each entry's last delivery is re-dated `idle_ms` ago (XCLAIM …
-- IDLE … JUSTID, which leaves the delivery count alone), so it becomes claimable again once it has
-- been idle for the group's min-idle time. An entry no longer pending (acked, or trimmed and
-- reclaimed meanwhile) is skipped by the server.
-- @key stream     emq:{q}:stream:<stream>
-- @arg group      the consumer group
-- @arg consumer   the consumer that keeps the entries
-- @arg idle_ms    how long ago to date the last delivery: the min-idle time minus the delay, >= 0
-- @args xids      the entries' stream ids
-- @returns the number of entries re-dated
local n = 0
-- Lua's unpack is bounded by its C stack; claim in slices well below it. The options follow the ids.
for i = 4, #ARGV, 1000 do
  local tail = { unpack(ARGV, i, math.min(i + 999, #ARGV)) }
  tail[#tail + 1] = 'IDLE'
  tail[#tail + 1] = a_idle_ms
  tail[#tail + 1] = 'JUSTID'
  n = n + #redis.call('XCLAIM', k_stream, a_group, a_consumer, '0', unpack(tail))
end
return n
