package dev.retrykit;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.budget.RetryBudgetConfig;
import dev.retrykit.circuit.CircuitBreakerConfig;
import dev.retrykit.context.RetryContext;
import dev.retrykit.context.StopReason;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link RetryContext#getStopReason()} as listeners see it when a call closes: why each kind of call that
 * did not succeed stopped, nothing for one that succeeded, and nothing left over from an earlier call on
 * the thread's pooled context.
 */
class StopReasonTests {

	private final VirtualTime time = new VirtualTime();

	private final List<@Nullable StopReason> reasons = new ArrayList<>();

	private final RetryListener closes = new RetryListener() {
		@Override
		public void close(RetryContext context, @Nullable Throwable failure) {
			StopReasonTests.this.reasons.add(context.getStopReason());
		}
	};

	private RetryConfigBuilder config() {
		return RetryConfig.builder().maxAttempts(3).backoff(BackoffPolicy.fixed(Duration.ofMillis(10)));
	}

	private RetryTemplate template(RetryConfigBuilder config) {
		return RetryTemplate.builder().name("stock").virtualTime(this.time).config(config.build()).listener(this.closes)
			.build();
	}

	private static String down(RetryContext context) throws IOException {
		throw new IOException("down");
	}

	@Test
	void aSuccessfulCallHasNone() {
		template(config()).execute(context -> "ok");
		assertThat(this.reasons).containsExactly((StopReason) null);
	}

	@Test
	void attemptsUsedUp() {
		assertThatThrownBy(() -> template(config()).execute(StopReasonTests::down)).isInstanceOf(IOException.class);
		assertThat(this.reasons).containsExactly(StopReason.ATTEMPTS_EXHAUSTED);
		assertThat(this.reasons.get(0).isExhaustion()).isTrue();
	}

	@Test
	void exhaustedOnlyCountsAsAttemptsUsedUp() {
		assertThatThrownBy(() -> template(config()).execute(context -> {
			context.setExhaustedOnly();
			throw new IOException("give up");
		})).isInstanceOf(IOException.class);
		assertThat(this.reasons).containsExactly(StopReason.ATTEMPTS_EXHAUSTED);
	}

	@Test
	void aFailureThatIsNotRetryable() {
		assertThatThrownBy(() -> template(config().ignore(IOException.class)).execute(StopReasonTests::down))
			.isInstanceOf(IOException.class);
		assertThat(this.reasons).containsExactly(StopReason.NOT_RETRYABLE);
		assertThat(StopReason.NOT_RETRYABLE.isExhaustion()).isFalse();
	}

	@Test
	void maxDurationIsADeadline() {
		assertThatThrownBy(() -> template(config().maxAttempts(10).maxDuration(Duration.ofMillis(15)))
			.execute(StopReasonTests::down)).isInstanceOf(IOException.class);
		assertThat(this.reasons).containsExactly(StopReason.DEADLINE);
	}

	@Test
	void theBudgetRefusedTheRetry() {
		RetryTemplate template = template(config().maxAttempts(10)
			.budget(RetryBudgetConfig.builder().maxTokens(2).build(), null));
		assertThatThrownBy(() -> template.execute(StopReasonTests::down)).isInstanceOf(IOException.class);
		assertThat(this.reasons).containsExactly(StopReason.BUDGET_EXHAUSTED);
	}

	@Test
	void theCircuitRefusedTheAttempt() {
		RetryTemplate template = template(config()
			.circuitBreaker(CircuitBreakerConfig.builder().trip("consecutiveFailures >= 1").build()));
		assertThatThrownBy(() -> template.execute(StopReasonTests::down)).isInstanceOf(RuntimeException.class);
		assertThat(this.reasons).containsExactly(StopReason.CIRCUIT_OPEN);
	}

	@Test
	void aCancelledAsyncCall() {
		CompletableFuture<String> call = template(config()).executeAsync(CompletableFuture::new);
		call.cancel(false);
		assertThat(this.reasons).containsExactly(StopReason.CANCELLED);
	}

	@Test
	void anInterruptedWait() {
		RetryTemplate template = RetryTemplate.builder().name("stock").timeSource(this.time)
			.sleeper(delay -> {
				throw new InterruptedException();
			}).listener(this.closes).build();
		assertThatThrownBy(() -> template.execute(StopReasonTests::down)).isInstanceOf(RetryInterruptedException.class);
		assertThat(Thread.interrupted()).isTrue();
		assertThat(this.reasons).containsExactly(StopReason.CANCELLED);
	}

	@Test
	void aBrokenPolicyIsSomethingElse() {
		RetryTemplate template = template(config().retryOnResult(result -> {
			throw new IllegalStateException("broken predicate");
		}));
		assertThatThrownBy(() -> template.execute(context -> "ok")).hasMessage("broken predicate");
		assertThat(this.reasons).containsExactly(StopReason.OTHER);
	}

	@Test
	void aFailedCallLeavesNothingForTheNextCallOnThisThread() {
		RetryTemplate template = template(config());
		assertThatThrownBy(() -> template.execute(StopReasonTests::down)).isInstanceOf(IOException.class);
		template.execute(context -> {
			assertThat(context.getStopReason()).isNull();
			return "ok";
		});
		assertThat(this.reasons).containsExactly(StopReason.ATTEMPTS_EXHAUSTED, null);
	}

}
