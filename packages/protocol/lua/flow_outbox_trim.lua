-- @script flow_outbox_trim
-- @purpose [TS] Drop the entries an outbox sweep has delivered, from the head of the outbox
-- (queue.md §11.5: delivery before removal, so a crash between the two can only redeliver, and the
-- delivery scripts' HSETNX guards make that harmless). A transition so no client writes the key.
-- @key outbox     emq:{q}:flow:outbox
-- @arg delivered  how many entries from the head were delivered
-- @returns the entries left
local n = tonumber(a_delivered)
if n and n > 0 then redis.call('LTRIM', k_outbox, n, -1) end
return redis.call('LLEN', k_outbox)
