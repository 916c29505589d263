package dev.retrykit.spring.boot.actuate.endpoint;

import java.io.IOException;
import java.time.Duration;

import dev.retrykit.RetryRegistry;
import dev.retrykit.RetryState;
import dev.retrykit.RetryTemplate;
import dev.retrykit.VirtualTime;
import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.backoff.BackoffType;
import dev.retrykit.budget.RetryBudgetConfig;
import dev.retrykit.circuit.CircuitBreakerConfig;
import dev.retrykit.policy.StatusCodes;
import dev.retrykit.spi.StatusExtractor;

/**
 * The registry the actuator tests share, in virtual time: {@code inventory} (the documented example
 * config), {@code payments} (a circuit breaker that opens after two failures, 30s timeout) and
 * {@code search} (a budget of 2 tokens, so the first retry is refused).
 */
public final class TestRetryRegistries {

	/** A secret that tests pass as a stateful key and inside exception messages. */
	public static final String SECRET = "card-4111-1111";

	private TestRetryRegistries() {
	}

	public static RetryRegistry create(VirtualTime time) {
		return RetryRegistry.builder().virtualTime(time)
			.instance("inventory", null, (config) -> config.maxAttempts(4).maxDuration(Duration.ofSeconds(10))
				.backoff(BackoffPolicy.builder().type(BackoffType.EXPONENTIAL).delay(Duration.ofMillis(100))
					.multiplier(2.0).maxDelay(Duration.ofSeconds(2)).jitter(0.5).build())
				.retryOn(IOException.class).ignore(IllegalArgumentException.class)
				.httpStatus(StatusCodes.parse("429,500-599", StatusExtractor.Kind.HTTP)))
			.instance("payments", null, (config) -> config.maxAttempts(2).backoff(BackoffPolicy.none())
				.circuitBreaker(CircuitBreakerConfig.builder().trip("consecutiveFailures >= 2")
					.timeout(Duration.ofSeconds(30)).build()))
			.instance("search", null, (config) -> config.backoff(BackoffPolicy.none())
				.budget(RetryBudgetConfig.builder().maxTokens(2).build(), null))
			.build();
	}

	/** Opens the circuit of {@code payments} with one call that fails twice. */
	public static void openPaymentsCircuit(RetryRegistry registry) {
		fail(registry.template("payments"), "payments down");
	}

	/** One stateful call of {@code inventory} that fails and leaves its context in the cache. */
	public static void failStatefully(RetryRegistry registry, Object key) {
		try {
			registry.template("inventory").execute((context) -> {
				throw new IOException("declined " + SECRET);
			}, RetryState.of(key));
		}
		catch (IOException expected) {
			// The stateful call rethrows so that the caller can roll back; the context stays cached.
		}
	}

	public static void fail(RetryTemplate template, String message) {
		try {
			template.execute((context) -> {
				throw new IOException(message);
			});
		}
		catch (IOException expected) {
			// Exhausted: the metrics and events are what the tests look at.
		}
	}

}
