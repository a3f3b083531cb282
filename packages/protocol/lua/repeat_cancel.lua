-- @script repeat_cancel
-- @purpose Stop a repeating job; the record is deleted whether or not the name was scheduled
-- (queue.md §10.1).
-- @key repeat     emq:{q}:repeat
-- @key record     emq:{q}:repeat:<name>
-- @arg name       the repeat name
-- @returns 1 removed; 0 absent
local removed = redis.call('ZREM', k_repeat, a_name)
redis.call('DEL', k_record)
return removed
