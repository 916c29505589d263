/**
 * The Redis engine of a retry cluster: {@link dev.retrykit.redis.RedisEngine} shares stateful
 * contexts, retry budgets and circuit transitions through the application's Redis, with Lettuce, using
 * Lua scripts for every atomic update (compare-and-set of a context, LRU eviction, budget exchange),
 * Pub/Sub for circuit messages and heartbeats for the member count. Keys carry an instance's hash tag,
 * so the scripts work on Redis Cluster. No Spring needed.
 */
@NullMarked
package dev.retrykit.redis;

import org.jspecify.annotations.NullMarked;
