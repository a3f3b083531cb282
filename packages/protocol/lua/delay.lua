-- @script delay
-- @purpose Hand a held job back until a later time without counting a failure: the inverse of a
-- claim; attempts is kept (queue.md §8.3).
-- @key active     emq:{q}:active
-- @key schedule   emq:{q}:schedule
-- @key row        emq:{q}:job:<id>
-- @key gactive    emq:{q}:gactive
-- @key glimit     emq:{q}:glimit
-- @key ring       emq:{q}:ring
-- @key wake       emq:{q}:wake
-- @key paused     emq:{q}:paused
-- @key laneroot   emq:{q}:g:
-- @key jobroot    emq:{q}:job: [TS]: the row's worker-presence marker :lock goes with the hand-back
-- @key events     emq:{q}:events [TS] (a channel, declared so no name is built): lib events
-- @key meta       emq:{q}:meta [TS]: the queue's event settings (lib events)
-- @key journal    emq:{q}:journal [TS]: the events journal, written when meta `journal` is set
-- @arg id         the job's id; must be JOB-namespaced
-- @arg token      the attempts value the claim returned
-- @arg mode       "in" (ms from server now) or "at" (absolute epoch ms)
-- @arg ms         the delay or the time
-- @args publish   optional "1" [TS]: publish `delayed` with `runAt` (epoch ms) in the same step
-- @include core history events lanes
-- @returns 1
-- @error EMQKIND job id must be JOB-namespaced
-- @error EMQSTALE job gone
-- @error EMQSTALE delay token mismatch
-- @error EMQSTALE not active
local id = a_id
if string.sub(id, 1, 3) ~= 'JOB' then return redis.error_reply('EMQKIND job id must be JOB-namespaced') end
local row = k_row
local attempts = redis.call('HGET', row, 'attempts')
if not attempts then return redis.error_reply('EMQSTALE job gone') end
if attempts ~= a_token then return redis.error_reply('EMQSTALE delay token mismatch') end
if redis.call('ZREM', k_active, id) == 0 then return redis.error_reply('EMQSTALE not active') end
hist_settled(k_meta, k_jobroot, id, attempts, 'delayed', '', nil)
local g = redis.call('HGET', row, 'group')
if g and vid(g) then release(lane_keys(k_gactive, k_glimit, k_ring, k_wake, k_paused), gkey(k_laneroot, g), g) end
local score = tonumber(a_ms)
if a_mode == 'in' then score = now_ms() + score end
redis.call('HSET', row, 'state', 'scheduled')
-- [TS] The claim's ticket (lib lease) goes with the lease.
redis.call('HDEL', row, 'claim_ticket')
redis.call('DEL', jkey(k_jobroot, id, ':lock'))
redis.call('ZADD', k_schedule, score, id)
if a_publish == '1' then
  ev_open(k_events, k_journal, k_meta)
  ev_emit('delayed', id, { runAt = string.format('%d', score) })
end
return 1
