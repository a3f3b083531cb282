-- @script dedup_release
-- @purpose [TS] Release an idempotency key before its job ends (BullMQ's removeDeduplicationKey): the
-- next admission under it is admitted. With a job id, only while the key still names that job (a
-- job releasing its own key must not free one a later job holds).
-- @key dedup      emq:{q}:de:<did>
-- @arg id         the job the key must name, or "" for whichever job it names
-- @returns 1 released; 0 the key was free, or named another job (nothing written)
local holder = redis.call('GET', k_dedup)
if not holder then return 0 end
if a_id ~= '' and holder ~= a_id then return 0 end
redis.call('DEL', k_dedup)
return 1
