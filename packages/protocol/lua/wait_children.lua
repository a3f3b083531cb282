-- @script wait_children
-- @purpose [TS] A step job waits for the children it added (BullMQ's moveToWaitingChildren): fenced
-- on its token while it is active, a job with open children leaves active for `awaiting_children`,
-- gives back its lease and its :lock marker, and joins the index of waiting parents; the worker
-- leaves it alone. When its last child settles, the fan-in puts it back in pending at its priority
-- score and its handler runs again. A job with no open child is left as it is (the handler goes on).
-- A lane job is refused: the fan-in releases parents to flat pending, which would take it off its lane.
-- @key active     emq:{q}:active
-- @key row        emq:{q}:job:<id>
-- @key deps       emq:{q}:job:<id>:dependencies
-- @key waiting    emq:{q}:waiting-children
-- @key jobroot    emq:{q}:job:
-- @arg id         the job's id; must be JOB-namespaced
-- @arg token      the attempts value the claim returned
-- @include core
-- @returns the open-child count it now waits on; 0 none open (nothing changed)
-- @error EMQKIND job id must be JOB-namespaced
-- @error EMQSTALE job gone
-- @error EMQSTALE wait_children token mismatch
-- @error EMQSTALE not active
-- @error EMQSTATE a lane job cannot wait for children
local id = a_id
if string.sub(id, 1, 3) ~= 'JOB' then return redis.error_reply('EMQKIND job id must be JOB-namespaced') end
local f = redis.call('HMGET', k_row, 'attempts', 'group')
if not f[1] then return redis.error_reply('EMQSTALE job gone') end
if f[1] ~= a_token then return redis.error_reply('EMQSTALE wait_children token mismatch') end
if not redis.call('ZSCORE', k_active, id) then return redis.error_reply('EMQSTALE not active') end
if f[2] and vid(f[2]) then return redis.error_reply('EMQSTATE a lane job cannot wait for children') end
local open = tonumber(redis.call('GET', k_deps) or '0')
if open <= 0 then return 0 end
redis.call('ZREM', k_active, id)
redis.call('HSET', k_row, 'state', 'awaiting_children')
redis.call('DEL', jkey(k_jobroot, id, ':lock'))
redis.call('SADD', k_waiting, id)
return open
