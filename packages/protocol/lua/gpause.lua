-- @script gpause
-- @purpose Take one lane out of rotation (queue.md §5.4); its backlog and in-flight work are untouched.
-- Distinct from the queue-wide pause.
-- @key paused     emq:{q}:paused
-- @key ring       emq:{q}:ring
-- @arg g          the group's branded id
-- @include core
-- @returns 1
-- @error EMQKIND group id must be a branded id
if not vid(a_g) then return redis.error_reply('EMQKIND group id must be a branded id') end
redis.call('SADD', k_paused, a_g)
redis.call('LREM', k_ring, 0, a_g)
return 1
