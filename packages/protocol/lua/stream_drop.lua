-- @script stream_drop
-- @purpose [TS] Drop a stream log in one step: the stream (its consumer groups go with it) and its
-- archive watermark, so no reader sees a watermark for a stream that is gone (bus.md §2, §8).
-- @key stream     emq:{q}:stream:<stream>
-- @key archived   emq:{q}:stream:<stream>:archived
-- @returns 1 dropped; 0 there was no stream
local existed = redis.call('EXISTS', KEYS[1])
redis.call('DEL', KEYS[1], KEYS[2])
return existed
