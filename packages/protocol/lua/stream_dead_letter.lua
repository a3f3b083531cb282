-- @script stream_dead_letter
-- @purpose [TS] Move entries of a consumer group to the stream's dead-letter stream, each with its
-- reason, attempts and original id, and ack them, in one step (bus.md §7.2): what a consumer does
-- when a handler fails an entry on its last allowed delivery, or rejects it outright.
-- @key stream     emq:{q}:stream:<stream>
-- @key dead       emq:{q}:stream:<stream>:dead
-- @arg group      the consumer group
-- @arg consumer   the consumer that gave up on the entries
-- @args triples   xid attempts reason, per entry
-- @include streams
-- @returns the number of records written (an entry trimmed away meanwhile is only acked)
local moved = 0
for i = 3, #ARGV, 3 do
  moved = moved + dead_letter(k_stream, k_dead, a_group, a_consumer, ARGV[i], ARGV[i + 1], ARGV[i + 2])
end
return moved
