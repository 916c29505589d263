package dev.retrykit;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.circuit.CircuitBreakerConfig;
import dev.retrykit.circuit.CircuitOpenException;
import dev.retrykit.circuit.CircuitState;
import dev.retrykit.failback.FailbackExecutor;
import dev.retrykit.spi.StatusExtractor;
import dev.retrykit.policy.StatusCodes;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A half-open circuit's trial slot is given back whatever user code in the decision throws, in every
 * kind of call; and a call whose own failure opens the circuit says so in its rejection's cause.
 */
class HalfOpenTrialTests {

	private final VirtualTime time = new VirtualTime();

	private final IllegalStateException broken = new IllegalStateException("classifier failed");

	private final IOException down = new IOException("down");

	/** Throws while {@link #breaking} is set. */
	private final AtomicBoolean breaking = new AtomicBoolean();

	private RetryConfigBuilder config() {
		return RetryConfig.builder().maxAttempts(3).backoff(BackoffPolicy.fixed(Duration.ofSeconds(1)))
			.circuitBreaker(CircuitBreakerConfig.builder().trip("consecutiveFailures >= 1")
				.timeout(Duration.ofSeconds(30)).build());
	}

	private RetryTemplate template(RetryConfigBuilder config) {
		return RetryTemplate.builder().name("trial").virtualTime(this.time).config(config.build()).build();
	}

	private RetryConfigBuilder withThrowingRetryIf() {
		return config().retryIf(failure -> {
			if (this.breaking.get()) {
				throw this.broken;
			}
			return true;
		});
	}

	/** Opens the circuit with one failed call, then lets its timeout pass: the next call is a trial. */
	private void halfOpen(RetryTemplate template) {
		assertThatThrownBy(() -> template.execute(context -> {
			throw this.down;
		})).isInstanceOf(CircuitOpenException.class);
		this.time.advance(Duration.ofSeconds(30));
		assertThat(template.getCircuitBreaker().getState()).isEqualTo(CircuitState.HALF_OPEN);
	}

	private void assertTrialSlotIsFree(RetryTemplate template) throws Exception {
		this.breaking.set(false);
		String result = template.execute(context -> "ok");
		assertThat(result).isEqualTo("ok");
		assertThat(template.getCircuitBreaker().getState()).isEqualTo(CircuitState.CLOSED);
	}

	@Test
	void aRetryIfThatThrowsDuringAHalfOpenTrialGivesTheTrialSlotBack() throws Exception {
		RetryTemplate template = template(withThrowingRetryIf());
		halfOpen(template);
		this.breaking.set(true);
		assertThatThrownBy(() -> template.execute(context -> {
			throw this.down;
		})).isSameAs(this.broken);
		assertTrialSlotIsFree(template);
	}

	@Test
	void aStatusExtractorThatThrowsDuringAHalfOpenTrialGivesTheTrialSlotBack() throws Exception {
		StatusExtractor extractor = new StatusExtractor() {
			@Override
			public Kind kind() {
				return Kind.HTTP;
			}

			@Override
			public int statusOf(Throwable failure) {
				if (HalfOpenTrialTests.this.breaking.get()) {
					throw HalfOpenTrialTests.this.broken;
				}
				return NO_STATUS;
			}
		};
		RetryTemplate template = template(config().httpStatus(StatusCodes.parse("500-599", StatusExtractor.Kind.HTTP))
			.statusExtractors(java.util.List.of(extractor)));
		halfOpen(template);
		this.breaking.set(true);
		assertThatThrownBy(() -> template.execute(context -> {
			throw this.down;
		})).isSameAs(this.broken);
		assertTrialSlotIsFree(template);
	}

	@Test
	void aResultPredicateThatThrowsDuringAHalfOpenTrialGivesTheTrialSlotBack() throws Exception {
		RetryTemplate template = template(config().retryOnResult(result -> {
			if (this.breaking.get()) {
				throw this.broken;
			}
			return false;
		}));
		halfOpen(template);
		this.breaking.set(true);
		assertThatThrownBy(() -> template.execute(context -> "trial")).isSameAs(this.broken);
		assertTrialSlotIsFree(template);
	}

	@Test
	void aRetryIfThatThrowsDuringAStatefulHalfOpenTrialGivesTheTrialSlotBack() throws Exception {
		RetryTemplate template = template(withThrowingRetryIf());
		halfOpen(template);
		this.breaking.set(true);
		assertThatThrownBy(() -> template.execute(context -> {
			throw this.down;
		}, RetryState.of("message-1"))).isSameAs(this.broken);
		assertTrialSlotIsFree(template);
	}

	@Test
	void aRetryIfThatThrowsDuringAnAsyncHalfOpenTrialGivesTheTrialSlotBack() throws Exception {
		RetryTemplate template = template(withThrowingRetryIf());
		halfOpen(template);
		this.breaking.set(true);
		CompletableFuture<String> call = template.executeAsync(() -> CompletableFuture.failedFuture(this.down));
		assertThat(call).isCompletedExceptionally();
		assertThatThrownBy(call::join).hasCause(this.broken);
		assertTrialSlotIsFree(template);
	}

	@Test
	void aRetryIfThatThrowsDuringAFailbackHalfOpenTrialGivesTheTrialSlotBackAndEndsTheTask() throws Exception {
		RetryRegistry registry = RetryRegistry.builder().virtualTime(this.time)
			.instance("trial", null, config -> config.maxAttempts(3).backoff(BackoffPolicy.fixed(Duration.ofSeconds(1)))
				.circuitBreaker(CircuitBreakerConfig.builder().trip("consecutiveFailures >= 1")
					.timeout(Duration.ofSeconds(30)).build())
				.retryIf(failure -> {
					if (this.breaking.get()) {
						throw this.broken;
					}
					return true;
				}))
			.build();
		RetryTemplate template = registry.template("trial");
		FailbackExecutor failback = registry.failback("trial");
		halfOpen(template);
		this.breaking.set(true);
		failback.submit("audit-1", () -> {
			throw new IllegalArgumentException("still down");
		});
		assertThat(failback.pendingCount()).isZero();
		assertThat(failback.exhaustedCount()).isEqualTo(1);
		assertTrialSlotIsFree(template);
	}

	@Test
	void aCallWhoseOwnFailureOpensTheCircuitIsRejectedWithThatFailureAsCause() {
		RetryTemplate template = template(config());
		assertThatThrownBy(() -> template.execute(context -> {
			throw this.down;
		})).isInstanceOf(CircuitOpenException.class).hasCause(this.down);
	}

	@Test
	void anAsyncCallWhoseOwnFailureOpensTheCircuitIsRejectedWithThatFailureAsCause() {
		RetryTemplate template = template(config());
		CompletableFuture<String> call = template.executeAsync(() -> CompletableFuture.failedFuture(this.down));
		assertThatThrownBy(call::join).cause().isInstanceOf(CircuitOpenException.class).hasCause(this.down);
	}

	@Test
	void aCallRejectedBeforeItsFirstAttemptHasNoCause() {
		RetryTemplate template = template(config());
		template.getCircuitBreaker().forceOpen();
		assertThatThrownBy(() -> template.execute(context -> "never")).isInstanceOf(CircuitOpenException.class)
			.hasNoCause();
	}

}
