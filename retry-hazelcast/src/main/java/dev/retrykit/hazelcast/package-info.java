/**
 * The Hazelcast engine of a retry cluster: {@link dev.retrykit.hazelcast.HazelcastClusterEngine} shares
 * stateful contexts, retry budgets and circuit transitions through the Community edition's {@code IMap}
 * (compare-and-set, TTL and size bounds, backups) and {@code ITopic}. Everything it stores is a JDK type
 * ({@code byte[]}, {@code Long}, {@code String}), so an embedded member or a client works without the
 * application's classes on the servers. No Spring needed.
 */
@NullMarked
package dev.retrykit.hazelcast;

import org.jspecify.annotations.NullMarked;
