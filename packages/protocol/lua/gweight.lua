-- @script gweight
-- @purpose Set a lane's weight, its share of service under gwclaim (queue.md §5.5). A weight never
-- changes whether a lane is serviceable, so no ring work is done.
-- @key gweight    emq:{q}:gweight
-- @arg g          the group's branded id
-- @arg w          the weight (>= 1)
-- @include core
-- @returns 1
-- @error EMQKIND group id must be a branded id
if not vid(a_g) then return redis.error_reply('EMQKIND group id must be a branded id') end
redis.call('HSET', k_gweight, a_g, a_w)
return 1
