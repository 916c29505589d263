package dev.retrykit.scheduler;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;

import dev.retrykit.RetryCallback;
import dev.retrykit.RetryConfig;
import dev.retrykit.context.RetryContext;
import dev.retrykit.RetryListener;
import dev.retrykit.RetryTemplate;
import dev.retrykit.VirtualTime;
import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.circuit.CircuitBreakerConfig;
import dev.retrykit.circuit.CircuitOpenException;
import dev.retrykit.circuit.CircuitState;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * An async call whose attempt is in flight when the call is cancelled or the attempt times out: the
 * attempt's stage may refuse cancelling ({@link CompletableFuture#minimalCompletionStage()} throws
 * {@link UnsupportedOperationException}) or never complete, and still the caller's {@code cancel}
 * returns, the listeners are closed, and a half-open circuit gets its trial slot back.
 */
class InFlightAttemptTests {

	private final VirtualTime time = new VirtualTime();

	private final IOException down = new IOException("down");

	/** A stage that never completes and whose {@code cancel} throws. */
	private static CompletionStage<String> hangingMinimalStage() {
		return new CompletableFuture<String>().minimalCompletionStage();
	}

	@Test
	void cancellingACallWhoseAttemptRefusesCancellingReturnsAndClosesTheListeners() {
		List<@Nullable Throwable> closed = new ArrayList<>();
		RetryTemplate template = RetryTemplate.builder().virtualTime(this.time).maxAttempts(3)
			.listener(new RetryListener() {
				@Override
				public void close(RetryContext context, @Nullable Throwable failure) {
					closed.add(failure);
				}
			})
			.build();
		CompletableFuture<String> call = template.executeAsync(InFlightAttemptTests::hangingMinimalStage);

		assertThat(call.cancel(true)).isTrue();

		assertThat(call).isCancelled();
		assertThat(closed).singleElement().isInstanceOf(CancellationException.class);
	}

	@Test
	void anAttemptThatTimesOutAndRefusesCancellingIsRetried() {
		AtomicInteger attempts = new AtomicInteger();
		RetryTemplate template = RetryTemplate.builder().virtualTime(this.time).maxAttempts(3)
			.backoff(BackoffPolicy.none()).attemptTimeout(Duration.ofSeconds(1)).build();
		CompletableFuture<String> call = template.executeAsync(
				() -> (attempts.incrementAndGet() == 1) ? hangingMinimalStage() : CompletableFuture.completedFuture("ok"));

		this.time.advance(Duration.ofSeconds(1));

		assertThat(call).isCompletedWithValue("ok");
		assertThat(attempts).hasValue(2);
	}

	@Test
	void cancellingAHalfOpenTrialWhoseAttemptNeverCompletesGivesTheTrialSlotBack() throws Exception {
		RetryTemplate template = RetryTemplate.builder().name("trial").virtualTime(this.time)
			.config(RetryConfig.builder().maxAttempts(3).backoff(BackoffPolicy.fixed(Duration.ofSeconds(1)))
				.circuitBreaker(CircuitBreakerConfig.builder().trip("consecutiveFailures >= 1")
					.timeout(Duration.ofSeconds(30)).build())
				.build())
			.build();
		assertThatThrownBy(() -> template.execute(context -> {
			throw this.down;
		})).isInstanceOf(CircuitOpenException.class);
		this.time.advance(Duration.ofSeconds(30));
		assertThat(template.getCircuitBreaker().getState()).isEqualTo(CircuitState.HALF_OPEN);
		CompletableFuture<String> trial = template.executeAsync(InFlightAttemptTests::hangingMinimalStage);

		assertThat(trial.cancel(true)).isTrue();

		assertThat(template.execute((RetryCallback<String, RuntimeException>) context -> "ok")).isEqualTo("ok");
		assertThat(template.getCircuitBreaker().getState()).isEqualTo(CircuitState.CLOSED);
	}

}
