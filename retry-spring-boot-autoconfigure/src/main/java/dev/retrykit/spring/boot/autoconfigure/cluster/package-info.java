/**
 * Auto-configuration of the retry cluster: state shared by a service's replicas
 * ({@code retry.cluster.enabled=true}) through the engine {@code retry.cluster.engine} chooses, Hazelcast
 * (the application's {@code HazelcastInstance}) or Redis (the application's Lettuce connection). Every
 * engine is optional: only this package refers to them, each engine in a configuration of its own.
 */
@NullMarked
package dev.retrykit.spring.boot.autoconfigure.cluster;

import org.jspecify.annotations.NullMarked;
