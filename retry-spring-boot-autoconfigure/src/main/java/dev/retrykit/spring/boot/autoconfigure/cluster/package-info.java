/**
 * Auto-configuration of the retry cluster: state shared by a service's replicas through the
 * application's {@code HazelcastInstance} ({@code retry.cluster.enabled=true}). Hazelcast and
 * {@code retry-hazelcast} are optional: only this package refers to them.
 */
@NullMarked
package dev.retrykit.spring.boot.autoconfigure.cluster;

import org.jspecify.annotations.NullMarked;
