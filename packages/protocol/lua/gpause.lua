-- @script gpause
-- @purpose Take one lane out of rotation (queue.md §5.4); its backlog and in-flight work are untouched.
-- Distinct from the queue-wide pause.
-- @key paused     emq:{q}:paused
-- @key ring       emq:{q}:ring
-- @arg g          the group's branded id
-- @include core
-- @returns 1
-- @error EMQKIND group id must be a branded id
if not vid(ARGV[1]) then return redis.error_reply('EMQKIND group id must be a branded id') end
redis.call('SADD', k_paused, ARGV[1])
redis.call('LREM', k_ring, 0, ARGV[1])
return 1
