-- @script obliterate
-- @purpose Delete a paused queue entirely, in bounded steps: jobs and sub-keys, lanes, repeat
-- records, then every fixed structure (queue.md §8.4). The host calls again while it answers 1. [TS]
-- Parents awaiting children sit in no set: they are found through the index of waiting parents.
-- [TS] Each job releases the idempotency key its row names; retained completed jobs and the two
-- retention indexes go too, and [TS] the expired index. Each index is swept by its own members, so
-- what another runtime's obliterate left of Echo's keys (it knows only the spec's) goes as well.
-- @key meta       emq:{q}:meta
-- @key pending    emq:{q}:pending
-- @key active     emq:{q}:active
-- @key schedule   emq:{q}:schedule
-- @key dead       emq:{q}:dead
-- @key ring       emq:{q}:ring
-- @key paused     emq:{q}:paused
-- @key glimit     emq:{q}:glimit
-- @key gactive    emq:{q}:gactive
-- @key gweight    emq:{q}:gweight
-- @key wake       emq:{q}:wake
-- @key limiter    emq:{q}:limiter
-- @key completed  emq:{q}:metrics:completed
-- @key failed     emq:{q}:metrics:failed
-- @key completed_data  emq:{q}:metrics:completed:data
-- @key failed_data     emq:{q}:metrics:failed:data
-- @key repeat     emq:{q}:repeat
-- @key outbox     emq:{q}:flow:outbox
-- @key jobroot    emq:{q}:job:
-- @key laneroot   emq:{q}:g:
-- @key waiting    emq:{q}:waiting-children [TS]
-- @key workers    emq:{q}:workers [TS]
-- @key workers_info  emq:{q}:workers:info [TS]
-- @key grate      emq:{q}:grate [TS]
-- @key retained   emq:{q}:completed [TS]: retained completed ids
-- @key deadat     emq:{q}:dead:at [TS]: dead ids by finish time
-- @key deroot     emq:{q}:de: [TS]: the root of the idempotency keys rows name
-- @key journal    emq:{q}:journal [TS]: the events journal (lib events)
-- @key outcomes   emq:{q}:outcomes [TS]: recent completions (lib retain)
-- @key expired    emq:{q}:expired [TS]: jobs a claim met past their deadline, by finish time
-- @keys records   emq:{q}:repeat:<name> for each name the host read from the repeat set
-- @arg force      "force" deletes active jobs and an unsent outbox too; "" refuses
-- @arg budget     most jobs to delete in this call
-- @args names     the repeat names matching the declared records, in order
-- @include core retain
-- @returns 0 done; 1 more remains (call again)
-- @error EMQSTATE not paused
-- @error EMQSTATE active jobs present
-- @error EMQSTATE outbox not empty
if redis.call('HEXISTS', k_meta, 'paused') == 0 then return redis.error_reply('EMQSTATE not paused') end
local force = a_force == 'force'
if not force and redis.call('LLEN', k_outbox) > 0 then return redis.error_reply('EMQSTATE outbox not empty') end
local budget = tonumber(a_budget)
local JR = k_jobroot

local function drop_job(id)
  if vid(id) then wipe_released(JR, k_deroot, id) end
end

-- Deletes up to the remaining budget from one set; true when the set is now empty.
local function purge(set)
  if budget <= 0 then return redis.call('ZCARD', set) == 0 end
  local ids = redis.call('ZRANGE', set, 0, budget - 1)
  for _, id in ipairs(ids) do
    drop_job(id)
    redis.call('ZREM', set, id)
  end
  budget = budget - #ids
  return redis.call('ZCARD', set) == 0
end

if not force and redis.call('ZCARD', k_active) > 0 then return redis.error_reply('EMQSTATE active jobs present') end
for _, set in ipairs({ k_active, k_pending, k_schedule, k_dead, k_retained, k_deadat, k_expired }) do
  if not purge(set) then return 1 end
end
if budget <= 0 and redis.call('SCARD', k_waiting) > 0 then return 1 end
for _, id in ipairs(redis.call('SPOP', k_waiting, math.max(budget, 1))) do
  drop_job(id)
  budget = budget - 1
end
if redis.call('SCARD', k_waiting) > 0 then return 1 end

local groups, seen = {}, {}
local function note(list)
  for _, g in ipairs(list) do
    if not seen[g] then
      seen[g] = true
      groups[#groups + 1] = g
    end
  end
end
note(redis.call('LRANGE', k_ring, 0, -1))
note(redis.call('SMEMBERS', k_paused))
note(redis.call('HKEYS', k_glimit))
note(redis.call('HKEYS', k_gactive))
note(redis.call('HKEYS', k_gweight))
for _, g in ipairs(groups) do
  if vid(g) then
    local lane = gkey(k_laneroot, g)
    if not purge(lane) then return 1 end
    redis.call('DEL', lane)
  end
end

for i = 3, #ARGV do
  local record = KEYS[28 + i]
  if record then redis.call('DEL', record) end
  redis.call('ZREM', k_repeat, ARGV[i])
end
if redis.call('ZCARD', k_repeat) > 0 then return 1 end

redis.call('DEL', k_completed, k_failed, k_completed_data, k_failed_data, k_gactive, k_glimit, k_gweight, k_ring, k_wake,
  k_paused, k_repeat, k_limiter, k_outbox, k_waiting, k_workers, k_workers_info, k_grate, k_retained, k_journal, k_outcomes, k_expired, k_pending, k_active, k_schedule, k_dead, k_meta)
return 0
