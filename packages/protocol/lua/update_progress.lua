-- @script update_progress
-- @purpose Record a job's progress and publish the progress event in the same atomic step
-- (queue.md §8.5, bus.md §1).
-- @key row        emq:{q}:job:<id>
-- @key events     emq:{q}:events (a channel, declared so no name is built)
-- @key meta       emq:{q}:meta [TS]: the queue's event settings (lib events)
-- @key journal    emq:{q}:journal [TS]: the events journal, written when meta `journal` is set
-- @arg id         the job's id
-- @arg progress   the progress text
-- @args kind      optional [TS] "string" or "json": how the text decodes when it is not what it looks
-- like (text that reads as a number, or a JSON value); kept on the row as progress_type and
-- published as the event's progress_type field (every field stays a string, as bus.md §1.1
-- requires). Without it the event is exactly the spec's, and numeric text reads as a number.
-- @include events
-- @returns 1 recorded; -1 gone (nothing published)
if redis.call('EXISTS', k_row) == 0 then return -1 end
local kind = a_kind
redis.call('HSET', k_row, 'progress', a_progress)
local extra = { progress = a_progress }
if kind == 'string' or kind == 'json' then
  redis.call('HSET', k_row, 'progress_type', kind)
  extra.progress_type = kind
else
  redis.call('HDEL', k_row, 'progress_type')
end
ev_open(k_events, k_journal, k_meta)
ev_emit('progress', a_id, extra)
return 1
