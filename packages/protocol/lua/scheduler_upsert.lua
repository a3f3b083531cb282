-- @script scheduler_upsert
-- @purpose [TS] Create or update a job scheduler under a repeat name (queue.md §10.1 extended): an
-- every-ms cadence (the spec's record, `every_ms` + `template`) or a cron pattern with a time zone
-- (`cron`, `tz`; the host computes occurrences), with an optional window (`start_ms`, `end_ms`) and a
-- run `limit`. An update keeps the next run when the cadence is unchanged, so a deploy that upserts
-- every scheduler shifts none of them; a changed cadence takes the first run the host computed. The
-- run `count` survives updates.
-- @key repeat     emq:{q}:repeat
-- @key record     emq:{q}:repeat:<name>
-- @arg name       the scheduler's (repeat) name
-- @arg every_ms   the cadence in ms, or "" for a cron scheduler
-- @arg cron       the cron pattern, or ""
-- @arg tz         the IANA time zone of the pattern, or ""
-- @arg template   the payload each occurrence is enqueued with
-- @arg mode       "in": `first` is ms from server now; "at": `first` is absolute epoch ms
-- @arg first      when the first occurrence is due
-- @arg start_ms   no occurrence before this epoch ms, or ""
-- @arg end_ms     no occurrence after this epoch ms, or ""
-- @arg limit      at most this many occurrences in all, or ""
-- @include core
-- @returns 1 created; 0 updated
local existed = redis.call('EXISTS', k_record) == 1
local same = false
if existed then
  local old = redis.call('HMGET', k_record, 'every_ms', 'cron', 'tz')
  same = (old[1] or '') == a_every_ms and (old[2] or '') == a_cron and (old[3] or '') == a_tz
end
local fields = { every_ms = a_every_ms, cron = a_cron, tz = a_tz, start_ms = a_start_ms, end_ms = a_end_ms, limit = a_limit }
for field, value in pairs(fields) do
  if value == '' then redis.call('HDEL', k_record, field) else redis.call('HSET', k_record, field, value) end
end
redis.call('HSET', k_record, 'template', a_template)
if same and redis.call('ZSCORE', k_repeat, a_name) then return 0 end
local first = tonumber(a_first)
if a_mode == 'in' then first = now_ms() + first end
local start = tonumber(a_start_ms)
if start and first < start then first = start end
redis.call('ZADD', k_repeat, first, a_name)
if existed then return 0 end
return 1
