-- @script stream_touch
-- @purpose [TS] Report progress on entries a consumer is still working on (JetStream's in-progress
-- ack, bus.md §7.2): each entry this consumer still holds has its idle time reset (XCLAIM to itself
-- with JUSTID, which leaves the delivery count alone), so no peer's idle claim takes it over. An
-- entry another consumer took meanwhile, or that is no longer pending, is left alone.
-- @key stream     emq:{q}:stream:<stream>
-- @arg group      the consumer group
-- @arg consumer   the consumer that holds the entries
-- @args xids      the entries' stream ids
-- @returns the number of entries still held by `consumer` and re-dated now
local stream = k_stream
local group, consumer = a_group, a_consumer
local n = 0
for i = 3, #ARGV do
  local row = redis.call('XPENDING', stream, group, ARGV[i], ARGV[i], 1)[1]
  if row and row[2] == consumer then
    redis.call('XCLAIM', stream, group, consumer, 0, ARGV[i], 'JUSTID')
    n = n + 1
  end
end
return n
