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
 *
 * <p>Whatever else can write these keys may leave anything there. A context key that holds another type,
 * or a string longer than a snapshot can be, is read as the unreadable-entry bytes the caller passes
 * (never sent whole, never an error), and a compare-and-set that expects those bytes replaces it, so the
 * next write of the key repairs it ({@code SET} replaces a value of any type). A budget or eviction count
 * that is not a finite number counts as absent. A sorted set or hash of the engine's that holds another
 * type makes a script fail with {@code WRONGTYPE}; {@link #REPAIR} deletes it, and the engine runs the
 * script again ({@link StructureRepair}).
 */
final class EngineScripts {

	private static final String NOW = """
			local t = redis.call('TIME')
			local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
			""";

	/**
	 * {@code stored(key, limit, unreadable)}: the string at the key, {@code false} if there is none, or
	 * {@code unreadable} if it holds another type or a string longer than {@code limit} bytes (not loaded).
	 */
	private static final String STORED = """
			local function stored(key, limit, unreadable)
			  local kind = redis.call('TYPE', key)['ok']
			  if kind == 'none' then return false end
			  if kind ~= 'string' or redis.call('STRLEN', key) > tonumber(limit) then return unreadable end
			  return redis.call('GET', key)
			end
			""";

	/** {@code count(text)}: the number the text holds if it is a finite, non-negative one below 2^53, else {@code nil}. */
	private static final String COUNT = """
			local function count(text)
			  local n = tonumber(text)
			  if n == nil or n ~= n or n < 0 or n >= 9007199254740992 then return nil end
			  return math.floor(n)
			end
			""";

	/** Forgets the index entries older than the TTL (ARGV[1]), whose contexts Redis has expired. */
	private static String trim(String index) {
		return "redis.call('ZREMRANGEBYSCORE', " + index + ", '-inf', '(' .. (now - tonumber(ARGV[1])))\n";
	}

	/**
	 * KEYS: context, index. ARGV: ttl ms, key, size limit, unreadable. Returns the stored bytes, nil, or
	 * the unreadable bytes; marks a readable context used.
	 */
	static final RedisScript GET_CONTEXT = new RedisScript("get-context", NOW + STORED + """
			local value = stored(KEYS[1], ARGV[3], ARGV[4])
			if value and value ~= ARGV[4] then
			  redis.call('PEXPIRE', KEYS[1], ARGV[1])
			  redis.call('ZADD', KEYS[2], now, ARGV[2])
			  redis.call('PEXPIRE', KEYS[2], ARGV[1])
			end
			return value
			""");

	/**
	 * KEYS: context, index, evictions hash. ARGV: ttl ms, key, capacity, context key start, has expected
	 * (0/1), expected, has next (0/1), next, member id, size limit, unreadable. Returns 1 if the context
	 * was the expected one (absent for 0; the unreadable bytes for a value of another type or too long) and
	 * is now the next one (absent for 0), else 0. Evicts the least recently used beyond the capacity and
	 * counts them under the member whose write evicted them (a count that is not a number starts again).
	 */
	static final RedisScript COMPARE_AND_SET_CONTEXT = new RedisScript("compare-and-set-context",
			NOW + STORED + COUNT + trim("KEYS[2]") + """
			local current = stored(KEYS[1], ARGV[10], ARGV[11])
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
			  local before = count(redis.call('HGET', KEYS[3], ARGV[9])) or 0
			  redis.call('HSET', KEYS[3], ARGV[9], string.format('%d', before + evicted))
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
	 * KEYS: index. ARGV: ttl ms, limit, context key start, size limit, unreadable, longest key. Returns key,
	 * bytes, key, bytes… of at most {@code limit} contexts, the most recently used first, reading no others
	 * (the unreadable bytes for one of another type or too long). An index member longer than any key the
	 * engine writes (something else put it there) is removed from the index, never returned.
	 */
	static final RedisScript LIST_CONTEXTS = new RedisScript("list-contexts", NOW + STORED + trim("KEYS[1]") + """
			local found = {}
			for _, key in ipairs(redis.call('ZREVRANGE', KEYS[1], 0, tonumber(ARGV[2]) - 1)) do
			  if #key > tonumber(ARGV[6]) then
			    redis.call('ZREM', KEYS[1], key)
			  else
			    local value = stored(ARGV[3] .. key, ARGV[4], ARGV[5])
			    if value then
			      found[#found + 1] = key
			      found[#found + 1] = value
			    end
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

	/** KEYS: evictions hash. ARGV: member id. Returns the member's evictions, or -1 if what is stored is not a count. */
	static final RedisScript READ_EVICTIONS = new RedisScript("read-evictions", COUNT + """
			local stored = redis.call('HGET', KEYS[1], ARGV[1])
			if not stored then return 0 end
			return count(stored) or -1
			""");

	/**
	 * KEYS: budgets hash. ARGV: budget, delta, max (thousandths of a token). A missing budget, or one that
	 * is not a finite number (a {@code nan} or {@code inf} someone stored), starts at max; the result is
	 * clamped into [0, max], stored and returned.
	 */
	static final RedisScript EXCHANGE_BUDGET = new RedisScript("exchange-budget", """
			local max = tonumber(ARGV[3])
			local stored = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '')
			if stored == nil or stored ~= stored or stored == math.huge or stored == -math.huge then stored = max end
			local next = math.floor(stored + tonumber(ARGV[2]))
			if next > max then next = max end
			if next < 0 then next = 0 end
			redis.call('HSET', KEYS[1], ARGV[1], string.format('%d', next))
			return next
			""");

	/**
	 * KEYS: circuit states hash. ARGV: circuit, size limit. Returns the circuit's stored state, nil, or
	 * a short text saying it is longer than the limit (which is not sent).
	 */
	static final RedisScript CIRCUIT_STATE = new RedisScript("circuit-state", """
			local size = redis.call('HSTRLEN', KEYS[1], ARGV[1])
			if size > tonumber(ARGV[2]) then return 'a value of ' .. size .. ' bytes' end
			return redis.call('HGET', KEYS[1], ARGV[1])
			""");

	/**
	 * KEYS: members sorted set. ARGV: member id, member timeout ms. Records the member's heartbeat, forgets
	 * the members silent for longer than the timeout and those whose heartbeat is in the future (no member
	 * writes one), and returns how many remain.
	 */
	static final RedisScript HEARTBEAT = new RedisScript("heartbeat", NOW + """
			redis.call('ZADD', KEYS[1], now, ARGV[1])
			redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. (now - tonumber(ARGV[2])))
			redis.call('ZREMRANGEBYSCORE', KEYS[1], '(' .. (now + tonumber(ARGV[2])), '+inf')
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

	/**
	 * KEYS: the engine's sorted sets and hashes an operation uses. ARGV: the type each should have
	 * ({@code zset} or {@code hash}). Deletes those that hold another type; returns key, type, key, type…
	 * of those it deleted.
	 */
	static final RedisScript REPAIR = new RedisScript("repair", """
			local repaired = {}
			for i, key in ipairs(KEYS) do
			  local kind = redis.call('TYPE', key)['ok']
			  if kind ~= 'none' and kind ~= ARGV[i] then
			    redis.call('DEL', key)
			    repaired[#repaired + 1] = key
			    repaired[#repaired + 1] = kind
			  end
			end
			return repaired
			""");

	private EngineScripts() {
	}

}
