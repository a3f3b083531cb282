-- @script stream_drop
-- @purpose [TS] Drop a stream log in one step: the stream (its consumer groups go with it), its
-- archive watermark, and its state beside the log (the publish-dedup window, the order registry and
-- the paused groups), so no reader sees state for a stream that is gone (bus.md §2, §8).
-- @key stream     emq:{q}:stream:<stream>
-- @key archived   emq:{q}:stream:<stream>:archived
-- @key msgids     emq:{q}:stream:<stream>:msgids
-- @key until      emq:{q}:stream:<stream>:msgids:until
-- @key order      emq:{q}:stream:<stream>:order
-- @key paused     emq:{q}:stream:<stream>:paused
-- @returns 1 dropped; 0 there was no stream
local existed = redis.call('EXISTS', k_stream)
redis.call('DEL', k_stream, k_archived, k_msgids, k_until, k_order, k_paused)
return existed
