package dev.retrykit.circuit;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.retrykit.RetryCallback;
import dev.retrykit.RetryConfig;
import dev.retrykit.RetryTemplate;
import dev.retrykit.VirtualTime;
import dev.retrykit.backoff.BackoffPolicy;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A circuit-state listener that throws, an {@link Error} included, never changes the outcome of the
 * call whose attempt made the circuit change state: the throw is counted and logged, and the other
 * listeners are still told.
 */
class CircuitStateListenerFailureTests {

	/** An Error of its own, so that nothing else in the JVM reacts to it as it would to a real one. */
	static final class ListenerError extends Error {

		ListenerError(String message) {
			super(message);
		}

	}

	private final List<String> heard = new CopyOnWriteArrayList<>();

	private final RetryTemplate template = RetryTemplate.builder().name("inventory").virtualTime(new VirtualTime())
		.config(RetryConfig.builder().maxAttempts(1).backoff(BackoffPolicy.none())
			.circuitBreaker(CircuitBreakerConfig.builder().trip("consecutiveFailures >= 1").build())
			.build())
		.build();

	private final RetryCallback<String, IOException> failing = context -> {
		throw new IOException("down");
	};

	@Test
	void anErrorFromAStateListenerLeavesTheCallersFailureAndTheOtherListenersAlone() {
		CircuitBreaker breaker = this.template.getCircuitBreaker();
		breaker.addStateListener((source, from, to) -> {
			throw new ListenerError(from + " -> " + to);
		});
		breaker.addStateListener((source, from, to) -> this.heard.add(from + " -> " + to));

		assertThatThrownBy(() -> this.template.execute(this.failing)).isInstanceOf(IOException.class)
			.hasMessage("down");

		assertThat(breaker.getState()).isEqualTo(CircuitState.OPEN);
		assertThat(this.heard).containsExactly("CLOSED -> OPEN");
		assertThat(breaker.getListenerFailureCount()).isEqualTo(1);
	}

	@Test
	void anErrorFromAStateListenerOnManualControlIsContainedToo() {
		CircuitBreaker breaker = this.template.getCircuitBreaker();
		breaker.addStateListener((source, from, to) -> {
			throw new ListenerError(from + " -> " + to);
		});

		breaker.forceOpen();
		breaker.close();

		assertThat(breaker.getState()).isEqualTo(CircuitState.CLOSED);
		assertThat(breaker.getListenerFailureCount()).isEqualTo(2);
		RetryCallback<String, RuntimeException> succeeding = context -> "ok";
		assertThat(this.template.execute(succeeding)).isEqualTo("ok");
	}

}
