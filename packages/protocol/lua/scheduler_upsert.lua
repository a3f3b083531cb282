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
  same = (old[1] or '') == ARGV[2] and (old[2] or '') == ARGV[3] and (old[3] or '') == ARGV[4]
end
local fields = { every_ms = ARGV[2], cron = ARGV[3], tz = ARGV[4], start_ms = ARGV[8], end_ms = ARGV[9], limit = ARGV[10] }
for field, value in pairs(fields) do
  if value == '' then redis.call('HDEL', k_record, field) else redis.call('HSET', k_record, field, value) end
end
redis.call('HSET', k_record, 'template', ARGV[5])
if same and redis.call('ZSCORE', k_repeat, ARGV[1]) then return 0 end
local first = tonumber(ARGV[7])
if ARGV[6] == 'in' then first = now_ms() + first end
local start = tonumber(ARGV[8])
if start and first < start then first = start end
redis.call('ZADD', k_repeat, first, ARGV[1])
if existed then return 0 end
return 1
