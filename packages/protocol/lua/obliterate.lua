-- @script obliterate
-- @purpose Delete a paused queue entirely, in bounded steps: jobs and sub-keys, lanes, repeat
-- records, then every fixed structure (queue.md §8.4). The host calls again while it answers 1. [TS]
-- Parents awaiting children sit in no set: they are found through the index of waiting parents.
-- [TS] Each job releases the idempotency key its row names; retained completed jobs and the two
-- retention indexes go too.
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
-- @keys records   emq:{q}:repeat:<name> for each name the host read from the repeat set
-- @arg force      "force" deletes active jobs and an unsent outbox too; "" refuses
-- @arg budget     most jobs to delete in this call
-- @args names     the repeat names matching the declared records, in order
-- @include core retain
-- @returns 0 done; 1 more remains (call again)
-- @error EMQSTATE not paused
-- @error EMQSTATE active jobs present
-- @error EMQSTATE outbox not empty
if redis.call('HEXISTS', KEYS[1], 'paused') == 0 then return redis.error_reply('EMQSTATE not paused') end
local force = ARGV[1] == 'force'
if not force and redis.call('LLEN', KEYS[18]) > 0 then return redis.error_reply('EMQSTATE outbox not empty') end
local budget = tonumber(ARGV[2])
local JR = KEYS[19]

local function drop_job(id)
  if vid(id) then wipe_released(JR, KEYS[27], id) end
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

if not force and redis.call('ZCARD', KEYS[3]) > 0 then return redis.error_reply('EMQSTATE active jobs present') end
for _, set in ipairs({ KEYS[3], KEYS[2], KEYS[4], KEYS[5], KEYS[25], KEYS[26] }) do
  if not purge(set) then return 1 end
end
if budget <= 0 and redis.call('SCARD', KEYS[21]) > 0 then return 1 end
for _, id in ipairs(redis.call('SPOP', KEYS[21], math.max(budget, 1))) do
  drop_job(id)
  budget = budget - 1
end
if redis.call('SCARD', KEYS[21]) > 0 then return 1 end

local groups, seen = {}, {}
local function note(list)
  for _, g in ipairs(list) do
    if not seen[g] then
      seen[g] = true
      groups[#groups + 1] = g
    end
  end
end
note(redis.call('LRANGE', KEYS[6], 0, -1))
note(redis.call('SMEMBERS', KEYS[7]))
note(redis.call('HKEYS', KEYS[8]))
note(redis.call('HKEYS', KEYS[9]))
note(redis.call('HKEYS', KEYS[10]))
for _, g in ipairs(groups) do
  if vid(g) then
    local lane = gkey(KEYS[20], g)
    if not purge(lane) then return 1 end
    redis.call('DEL', lane)
  end
end

for i = 3, #ARGV do
  local record = KEYS[27 + i]
  if record then redis.call('DEL', record) end
  redis.call('ZREM', KEYS[17], ARGV[i])
end
if redis.call('ZCARD', KEYS[17]) > 0 then return 1 end

redis.call('DEL', KEYS[13], KEYS[14], KEYS[15], KEYS[16], KEYS[9], KEYS[8], KEYS[10], KEYS[6], KEYS[11],
  KEYS[7], KEYS[17], KEYS[12], KEYS[18], KEYS[21], KEYS[22], KEYS[23], KEYS[24], KEYS[25], KEYS[28], KEYS[29], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[1])
return 0
