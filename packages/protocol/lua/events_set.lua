-- @script events_set
-- @purpose [TS] Set the queue's lifecycle-event settings in meta, read by every script that publishes
-- through lib events: `events` = "all" turns on the chatty events (waiting, active, drained), and
-- `journal` = N > 0 appends every published event to emq:{q}:journal, trimmed MAXLEN ~ N. Turning
-- the journal off keeps what it holds, so a reader can still catch up; trimming it to a smaller
-- bound happens here, at once, so the new bound holds before the next event. [TS] The operator's
-- memory (lib history): `history` = N > 0 keeps each job's last N attempts, `minutes` = M > 0 keeps
-- per-minute completion and failure counts for M minutes; turning either off keeps what was written
-- (a job's history goes with its row, minute fields age out of the window).
-- @key meta       emq:{q}:meta
-- @key journal    emq:{q}:journal
-- @arg chatty     "" leaves it; "1" turns the chatty events on; "0" off
-- @arg journal    "" leaves it; "0" turns the journal off; else its MAXLEN ~ bound
-- @args settings   optional [TS]: history ("" leaves it; "0" off; else attempts kept per job), then
-- minutes ("" leaves it; "0" off; else minutes of per-minute counts kept)
-- @returns 1
if a_chatty == '1' then
  redis.call('HSET', k_meta, 'events', 'all')
elseif a_chatty == '0' then
  redis.call('HDEL', k_meta, 'events')
end
if a_journal == '0' then
  redis.call('HDEL', k_meta, 'journal')
elseif a_journal ~= '' then
  redis.call('HSET', k_meta, 'journal', a_journal)
  redis.call('XTRIM', k_journal, 'MAXLEN', '~', a_journal)
end
for i, field in ipairs({ 'history', 'minutes' }) do
  local v = ARGV[2 + i]
  if v == '0' then
    redis.call('HDEL', k_meta, field)
  elseif v and v ~= '' then
    redis.call('HSET', k_meta, field, v)
  end
end
return 1
