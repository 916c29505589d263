/**
 * The {@code cluster} profile: each replica of the sample runs an embedded Hazelcast member, and the
 * replicas on one machine join each other, so that they share retry state.
 */
@NullMarked
package dev.retrykit.sample.cluster;

import org.jspecify.annotations.NullMarked;
