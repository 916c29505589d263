package dev.retrykit.spring.boot.autoconfigure.cluster;

import java.util.List;

import dev.retrykit.spi.ClusterEngine;
import dev.retrykit.spring.boot.autoconfigure.ClusterSettings;
import dev.retrykit.spring.boot.autoconfigure.InvalidRetryPropertyException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/** How {@code retry.cluster.engine} chooses among the engines offered, without a context. */
class ClusterEngineChoiceTests {

	private static final ClassLoader CLASS_LOADER = ClusterEngineChoiceTests.class.getClassLoader();

	private static ClusterEngineCandidate connected(String name) {
		return new ClusterEngineCandidate(name, null, () -> (ClusterEngine) null);
	}

	private static ClusterEngineCandidate unconnected(String name, String missing) {
		return new ClusterEngineCandidate(name, missing, () -> {
			throw new AssertionError("an engine without its connection is never built");
		});
	}

	@Test
	void theEngineNamesThePropertiesAcceptAreTheEnginesModules() {
		assertThat(ClusterSettings.ENGINES)
			.containsExactlyInAnyOrderElementsOf(java.util.Arrays.stream(ClusterEngineChoice.Engine.values())
				.map(engine -> engine.id)
				.toList());
	}

	@Test
	void anEmptyChoiceTakesTheOnlyEngineWithItsConnection() {
		ClusterEngineCandidate redis = connected("redis");
		assertThat(ClusterEngineChoice.choose("", List.of(unconnected("hazelcast", "no HazelcastInstance bean"), redis),
				CLASS_LOADER)).isSameAs(redis);
	}

	@Test
	void anEmptyChoiceBetweenTwoConnectedEnginesFailsNamingBoth() {
		assertThatExceptionOfType(InvalidRetryPropertyException.class)
			.isThrownBy(() -> ClusterEngineChoice.choose(" ", List.of(connected("hazelcast"), connected("redis")),
					CLASS_LOADER))
			.satisfies(failure -> {
				assertThat(failure.getProperty()).isEqualTo("retry.cluster.engine");
				assertThat(failure.getReason()).contains("hazelcast and redis");
			});
	}

	@Test
	void aNamedEngineIsChosenIgnoringCaseAndSpacesEvenWhenTheOtherIsConnected() {
		ClusterEngineCandidate hazelcast = connected("hazelcast");
		assertThat(ClusterEngineChoice.choose(" Hazelcast ", List.of(hazelcast, connected("redis")), CLASS_LOADER))
			.isSameAs(hazelcast);
	}

	@Test
	void aNamedEngineWithoutItsConnectionFailsSayingWhatIsMissingAndTheAlternatives() {
		assertThatExceptionOfType(InvalidRetryPropertyException.class)
			.isThrownBy(() -> ClusterEngineChoice.choose("redis",
					List.of(connected("hazelcast"), unconnected("redis", "no Redis connection is defined")), CLASS_LOADER))
			.satisfies(failure -> {
				assertThat(failure.getValue()).isEqualTo("redis");
				assertThat(failure.getReason()).isEqualTo("it chooses redis, but no Redis connection is defined");
				assertThat(failure.analysis().getAction()).contains("spring.data.redis", "hazelcast");
			});
	}

	@Test
	void anUnknownEngineFailsBeforeAnyCandidateIsLookedAt() {
		assertThatExceptionOfType(InvalidRetryPropertyException.class)
			.isThrownBy(() -> ClusterEngineChoice.choose("jdbc", List.of(connected("redis")), CLASS_LOADER))
			.satisfies(failure -> assertThat(failure.getReason()).contains("must be hazelcast or redis"));
	}

}
