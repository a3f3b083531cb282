-- @script events_set
-- @purpose [TS] Set the queue's lifecycle-event settings in meta, read by every script that publishes
-- through lib events: `events` = "all" turns on the chatty events (waiting, active, drained), and
-- `journal` = N > 0 appends every published event to emq:{q}:journal, trimmed MAXLEN ~ N. Turning
-- the journal off keeps what it holds, so a reader can still catch up; trimming it to a smaller
-- bound happens here, at once, so the new bound holds before the next event.
-- @key meta       emq:{q}:meta
-- @key journal    emq:{q}:journal
-- @arg chatty     "" leaves it; "1" turns the chatty events on; "0" off
-- @arg journal    "" leaves it; "0" turns the journal off; else its MAXLEN ~ bound
-- @returns 1
if ARGV[1] == '1' then
  redis.call('HSET', KEYS[1], 'events', 'all')
elseif ARGV[1] == '0' then
  redis.call('HDEL', KEYS[1], 'events')
end
if ARGV[2] == '0' then
  redis.call('HDEL', KEYS[1], 'journal')
elseif ARGV[2] ~= '' then
  redis.call('HSET', KEYS[1], 'journal', ARGV[2])
  redis.call('XTRIM', KEYS[2], 'MAXLEN', '~', ARGV[2])
end
return 1
