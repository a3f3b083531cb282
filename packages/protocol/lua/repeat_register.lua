-- @script repeat_register
-- @purpose Register a repeating job under a name; an existing name is left exactly as it is
-- (queue.md §10.1). Scores come from the server clock [TS].
-- @key repeat     emq:{q}:repeat
-- @key record     emq:{q}:repeat:<name>
-- @arg name       the repeat name
-- @arg every_ms   the cadence in ms
-- @arg template   the payload each occurrence is enqueued with
-- @arg first_in_ms  delay before the first occurrence, from server now
-- @include core
-- @returns 1 registered; 0 exists (nothing changed)
if redis.call('ZSCORE', k_repeat, a_name) or redis.call('EXISTS', k_record) == 1 then return 0 end
redis.call('HSET', k_record, 'every_ms', a_every_ms, 'template', a_template)
redis.call('ZADD', k_repeat, now_ms() + tonumber(a_first_in_ms), a_name)
return 1
