package dev.retrykit.redis;

/**
 * The engine's Lua scripts. Each runs atomically on the server. Times are the server's ({@code TIME},
 * allowed in scripts since Redis 5 replicates their effects), so replicas' clocks never matter.
 *
 * <p>An instance's contexts: one string per context, {@code <prefix>:{<instance>}:context:<key>},
 * with a TTL (refreshed by every read and write), and a sorted set {@code <prefix>:{<instance>}:contexts}
 * of the contexts' keys scored by their last use in milliseconds: the least recently used are evicted
 * from it beyond the capacity, and the entries older than the TTL (whose strings Redis has expired)
 * trimmed from it. The scripts build the string keys of evicted contexts from their name's start;
 * they share the instance's hash tag, so they are in the slot of the declared keys on Redis Cluster.
 */
final class EngineScripts {

	private static final String NOW = """
			local t = redis.call('TIME')
			local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
			""";

	/** Forgets the index entries older than the TTL (ARGV[1]), whose contexts Redis has expired. */
	private static String trim(String index) {
		return "redis.call('ZREMRANGEBYSCORE', " + index + ", '-inf', '(' .. (now - tonumber(ARGV[1])))\n";
	}

	/**
	 * KEYS: context, index. ARGV: ttl ms, key. Returns the stored bytes or nil, and marks the context used.
	 */
	static final RedisScript GET_CONTEXT = new RedisScript("get-context", NOW + """
			local value = redis.call('GET', KEYS[1])
			if value then
			  redis.call('PEXPIRE', KEYS[1], ARGV[1])
			  redis.call('ZADD', KEYS[2], now, ARGV[2])
			  redis.call('PEXPIRE', KEYS[2], ARGV[1])
			end
			return value
			""");

	/**
	 * KEYS: context, index, evictions hash. ARGV: ttl ms, key, capacity, context key start, has expected
	 * (0/1), expected, has next (0/1), next, member id. Returns 1 if the context was the expected one
	 * (absent for 0) and is now the next one (absent for 0), else 0. Evicts the least recently used beyond
	 * the capacity and counts them under the member whose write evicted them.
	 */
	static final RedisScript COMPARE_AND_SET_CONTEXT = new RedisScript("compare-and-set-context", NOW + trim("KEYS[2]") + """
			local current = redis.call('GET', KEYS[1])
			if ARGV[5] == '1' then
			  if current ~= ARGV[6] then return 0 end
			elseif current then
			  return 0
			end
			if ARGV[7] == '0' then
			  if current then
			    redis.call('DEL', KEYS[1])
			    redis.call('ZREM', KEYS[2], ARGV[2])
			  end
			  return 1
			end
			redis.call('SET', KEYS[1], ARGV[8], 'PX', ARGV[1])
			redis.call('ZADD', KEYS[2], now, ARGV[2])
			redis.call('PEXPIRE', KEYS[2], ARGV[1])
			local excess = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[3])
			if excess > 0 then
			  local evicted = 0
			  for _, victim in ipairs(redis.call('ZRANGE', KEYS[2], 0, excess)) do
			    if evicted < excess and victim ~= ARGV[2] then
			      redis.call('DEL', ARGV[4] .. victim)
			      redis.call('ZREM', KEYS[2], victim)
			      evicted = evicted + 1
			    end
			  end
			  redis.call('HINCRBY', KEYS[3], ARGV[9], evicted)
			end
			return 1
			""");

	/** KEYS: context, index. ARGV: key. */
	static final RedisScript REMOVE_CONTEXT = new RedisScript("remove-context", """
			redis.call('DEL', KEYS[1])
			redis.call('ZREM', KEYS[2], ARGV[1])
			return 1
			""");

	/** KEYS: index. ARGV: ttl ms. Returns the number of live contexts. */
	static final RedisScript COUNT_CONTEXTS = new RedisScript("count-contexts", NOW + trim("KEYS[1]") + """
			return redis.call('ZCARD', KEYS[1])
			""");

	/**
	 * KEYS: index. ARGV: ttl ms, limit, context key start. Returns key, bytes, key, bytes… of at most
	 * {@code limit} contexts, the most recently used first, reading no others.
	 */
	static final RedisScript LIST_CONTEXTS = new RedisScript("list-contexts", NOW + trim("KEYS[1]") + """
			local found = {}
			for _, key in ipairs(redis.call('ZREVRANGE', KEYS[1], 0, tonumber(ARGV[2]) - 1)) do
			  local value = redis.call('GET', ARGV[3] .. key)
			  if value then
			    found[#found + 1] = key
			    found[#found + 1] = value
			  end
			end
			return found
			""");

	/** KEYS: index. ARGV: context key start. Removes every context of the instance. */
	static final RedisScript CLEAR_CONTEXTS = new RedisScript("clear-contexts", """
			for _, key in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
			  redis.call('DEL', ARGV[1] .. key)
			end
			redis.call('DEL', KEYS[1])
			return 1
			""");

	/**
	 * KEYS: budgets hash. ARGV: budget, delta, max (thousandths of a token). A missing budget starts at
	 * max; the result is clamped into [0, max], stored and returned.
	 */
	static final RedisScript EXCHANGE_BUDGET = new RedisScript("exchange-budget", """
			local max = tonumber(ARGV[3])
			local stored = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '')
			local next = (stored or max) + tonumber(ARGV[2])
			if next > max then next = max end
			if next < 0 then next = 0 end
			redis.call('HSET', KEYS[1], ARGV[1], string.format('%d', next))
			return next
			""");

	/**
	 * KEYS: members sorted set. ARGV: member id, member timeout ms. Records the member's heartbeat, forgets
	 * the members silent for longer than the timeout and returns how many remain.
	 */
	static final RedisScript HEARTBEAT = new RedisScript("heartbeat", NOW + """
			redis.call('ZADD', KEYS[1], now, ARGV[1])
			redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. (now - tonumber(ARGV[2])))
			redis.call('PEXPIRE', KEYS[1], ARGV[2])
			return redis.call('ZCARD', KEYS[1])
			""");

	/**
	 * KEYS: members sorted set. ARGV: member id, member timeout ms, channel, message. Records the member's
	 * heartbeat and publishes the message, so that receivers find the sender registered.
	 */
	static final RedisScript PUBLISH = new RedisScript("publish", NOW + """
			redis.call('ZADD', KEYS[1], now, ARGV[1])
			redis.call('PEXPIRE', KEYS[1], ARGV[2])
			return redis.call('PUBLISH', ARGV[3], ARGV[4])
			""");

	private EngineScripts() {
	}

}
