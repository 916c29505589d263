package dev.retrykit.spring.boot.autoconfigure.cluster;

import java.util.function.Supplier;

import dev.retrykit.spi.ClusterEngine;
import org.jspecify.annotations.Nullable;

/**
 * An engine the retry cluster can run on, offered by that engine's configuration when its module and
 * client are on the class path: its name (a value of {@code retry.cluster.engine}), what it still lacks
 * to run (the application's connection, or {@code null} when it is there), and how to build it on that
 * connection, which happens only if it is chosen. Immutable.
 *
 * @param name the engine's name, {@code hazelcast} or {@code redis}
 * @param missingConnection what the application lacks for this engine and how to add it, or {@code null}
 * when the connection is there
 * @param engine builds the engine on the application's connection; may throw
 * {@link dev.retrykit.spring.boot.autoconfigure.InvalidRetryPropertyException} for a connection it cannot use
 */
record ClusterEngineCandidate(String name, @Nullable String missingConnection, Supplier<ClusterEngine> engine) {

	/** @return whether the application has the connection this engine runs on */
	boolean connected() {
		return this.missingConnection == null;
	}

}
