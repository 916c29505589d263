package dev.retrykit;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.budget.RetryBudgetConfig;
import dev.retrykit.circuit.CircuitBreakerConfig;
import dev.retrykit.circuit.CircuitOpenException;
import dev.retrykit.circuit.CircuitState;
import dev.retrykit.context.RetryContext;
import dev.retrykit.policy.StatusCodes;
import dev.retrykit.spi.StatusExtractor;
import org.junit.jupiter.api.Test;

import static dev.retrykit.FailingCalls.attemptsFor;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The circuit breaker, the retry budget and status matching as seen through a template.
 */
class RetryTemplateGuardsTests {

	private final VirtualTime time = new VirtualTime();

	private final AtomicInteger attempts = new AtomicInteger();

	private RetryTemplate withBreaker(String trip) {
		return RetryTemplate.builder().name("inventory").virtualTime(this.time)
			.config(RetryConfig.builder().maxAttempts(10).backoff(BackoffPolicy.fixed(Duration.ofMillis(100)))
				.circuitBreaker(CircuitBreakerConfig.builder().trip(trip).timeout(Duration.ofSeconds(30)).build())
				.build())
			.build();
	}

	private String failing(RetryContext context) throws IOException {
		this.attempts.incrementAndGet();
		throw new IOException("down");
	}

	@Test
	void theAttemptThatOpensTheCircuitEndsTheCallWithoutSleepingAgain() {
		RetryTemplate template = withBreaker("consecutiveFailures >= 3");
		assertThatThrownBy(() -> template.execute(this::failing)).isInstanceOf(CircuitOpenException.class)
			.hasMessageContaining("'inventory' is OPEN");
		assertThat(this.attempts).hasValue(3);
		assertThat(this.time.sleeps()).containsExactly(Duration.ofMillis(100), Duration.ofMillis(100));
		assertThat(template.getCircuitBreaker().getState()).isEqualTo(CircuitState.OPEN);
		assertThat(template.getMetrics().getCircuitOpenRejections()).isEqualTo(1);
		assertThat(template.getMetrics().getFailedCallsWithRetry()).isEqualTo(1);
	}

	@Test
	void anOpenCircuitRejectsTheFirstAttemptWithoutCallingOrSleeping() {
		RetryTemplate template = withBreaker("consecutiveFailures >= 1");
		template.getCircuitBreaker().forceOpen();
		assertThatThrownBy(() -> template.execute(this::failing)).isInstanceOf(CircuitOpenException.class);
		assertThat(this.attempts).hasValue(0);
		assertThat(this.time.sleeps()).isEmpty();
		assertThat(template.getMetrics().getFailedCallsWithoutRetry()).isEqualTo(1);
		assertThat(template.getMetrics().getAttempts()).isZero();
	}

	@Test
	void recoveryRunsWhenTheCircuitIsOpenAndSeesTheRejection() throws Exception {
		RetryTemplate template = withBreaker("consecutiveFailures >= 1");
		template.getCircuitBreaker().forceOpen();
		String result = template.execute(this::failing,
				context -> "cached (" + context.getLastThrowable().getClass().getSimpleName() + ")");
		assertThat(result).isEqualTo("cached (CircuitOpenException)");
		assertThat(template.getMetrics().getRecoveries()).isEqualTo(1);
	}

	@Test
	void theCircuitHalfOpensAfterItsTimeoutAndASuccessClosesIt() throws Exception {
		RetryTemplate template = withBreaker("consecutiveFailures >= 2");
		assertThatThrownBy(() -> template.execute(this::failing)).isInstanceOf(CircuitOpenException.class);
		this.time.advance(Duration.ofSeconds(30));
		String result = template.execute(context -> "back");
		assertThat(result).isEqualTo("back");
		assertThat(template.getCircuitBreaker().getState()).isEqualTo(CircuitState.CLOSED);
	}

	@Test
	void readingTheStateAfterTheTimeoutDoesNotTakeTheTrialCall() throws Exception {
		RetryTemplate template = withBreaker("consecutiveFailures >= 2");
		assertThatThrownBy(() -> template.execute(this::failing)).isInstanceOf(CircuitOpenException.class);
		this.time.advance(Duration.ofSeconds(30));
		assertThat(template.getCircuitBreaker().getState()).isEqualTo(CircuitState.HALF_OPEN);
		String result = template.execute(context -> "back");
		assertThat(result).isEqualTo("back");
		assertThat(template.getCircuitBreaker().getState()).isEqualTo(CircuitState.CLOSED);
	}

	@Test
	void aCallThatSucceedsAtOnceThroughTheBreakerIsRecordedByItAndCountedOnce() throws Exception {
		RetryTemplate template = withBreaker("consecutiveFailures >= 2");
		for (int i = 0; i < 3; i++) {
			String result = template.execute(context -> "ok");
			assertThat(result).isEqualTo("ok");
		}
		assertThat(template.getCircuitBreaker().getMetrics().totalSuccesses()).isEqualTo(3);
		assertThat(template.getMetrics().getAttempts()).isEqualTo(3);
		assertThat(template.getMetrics().getSuccessfulCallsWithoutRetry()).isEqualTo(3);
		assertThat(RetryTemplate.currentContext()).isNull();
	}

	@Test
	void aFirstAttemptThatFailsThroughTheBreakerIsRecordedAsAFailureAndTheNextAttemptTakesItsOwnPermit()
			throws Exception {
		RetryTemplate template = withBreaker("consecutiveFailures >= 5");
		AtomicInteger calls = new AtomicInteger();
		String result = template.execute(context -> {
			if (calls.incrementAndGet() == 1) {
				throw new IOException("once");
			}
			return "second";
		});
		assertThat(result).isEqualTo("second");
		assertThat(template.getCircuitBreaker().getMetrics().totalFailures()).isEqualTo(1);
		assertThat(template.getCircuitBreaker().getMetrics().totalSuccesses()).isEqualTo(1);
		assertThat(template.getMetrics().getAttempts()).isEqualTo(2);
		assertThat(template.getMetrics().getSuccessfulCallsWithRetry()).isEqualTo(1);
		assertThat(RetryTemplate.currentContext()).isNull();
	}

	@Test
	void aHalfOpenTrialThatThrowsAnErrorGivesItsSlotBackAndLeavesNoContextBehind() {
		RetryTemplate template = RetryTemplate.builder().name("inventory").virtualTime(this.time)
			.config(RetryConfig.builder().maxAttempts(1)
				.circuitBreaker(CircuitBreakerConfig.builder().trip("consecutiveFailures >= 1")
					.timeout(Duration.ofSeconds(30)).build())
				.build())
			.build();
		assertThatThrownBy(() -> template.execute(this::failing)).isInstanceOf(IOException.class);
		assertThat(template.getCircuitBreaker().getState()).isEqualTo(CircuitState.OPEN);
		this.time.advance(Duration.ofSeconds(30));
		assertThatThrownBy(() -> template.execute(context -> {
			throw new StackOverflowError("deep");
		})).isInstanceOf(StackOverflowError.class);
		assertThat(template.getCircuitBreaker().getMetrics().trialCallsInFlight()).isZero();
		assertThat(RetryTemplate.currentContext()).isNull();
	}

	@Test
	void aVariantSharesTheInstancesBreakerAndMetricsButUsesItsOwnConfig() {
		RetryTemplate instance = withBreaker("consecutiveFailures >= 3");
		RetryTemplate variant = instance.variant(RetryConfig.builder(instance.getConfig()).maxAttempts(2).build());
		assertThat(variant.getName()).isEqualTo("inventory");
		assertThatThrownBy(() -> variant.execute(this::failing)).isInstanceOf(IOException.class);
		assertThat(this.attempts).hasValue(2);
		assertThatThrownBy(() -> instance.execute(this::failing)).isInstanceOf(CircuitOpenException.class);
		assertThat(this.attempts).hasValue(3);
		assertThat(variant.getCircuitBreaker()).isSameAs(instance.getCircuitBreaker());
		assertThat(variant.getMetrics()).isSameAs(instance.getMetrics());
		assertThat(instance.getMetrics().getAttempts()).isEqualTo(3);
		assertThat(variant.getConfig().getMaxAttempts()).isEqualTo(2);
	}

	@Test
	void nonRetryableFailuresDoNotCountAgainstTheCircuit() {
		RetryTemplate template = RetryTemplate.builder().virtualTime(this.time)
			.config(RetryConfig.builder().ignore(IllegalArgumentException.class)
				.circuitBreaker(CircuitBreakerConfig.builder().trip("consecutiveFailures >= 1").build()).build())
			.build();
		assertThatThrownBy(() -> template.execute(context -> {
			throw new IllegalArgumentException("bad request");
		})).isInstanceOf(IllegalArgumentException.class);
		assertThat(template.getCircuitBreaker().getState()).isEqualTo(CircuitState.CLOSED);
	}

	@Test
	void anExhaustedBudgetEndsTheCallWithItsLastFailure() {
		RetryTemplate template = RetryTemplate.builder().virtualTime(this.time)
			.config(RetryConfig.builder().maxAttempts(10).backoff(BackoffPolicy.none())
				.budget(RetryBudgetConfig.builder().maxTokens(4).build(), null).build())
			.build();
		IOException last = new IOException("last");
		assertThatThrownBy(() -> template.execute(context -> {
			this.attempts.incrementAndGet();
			throw (context.getRetryCount() == 1) ? last : new IOException("first");
		})).isSameAs(last);
		assertThat(this.attempts).hasValue(2);
		assertThat(template.getBudget().getTokens()).isEqualTo(2.0);
		assertThat(template.getMetrics().getBudgetExhaustedRejections()).isEqualTo(1);
		assertThat(template.getMetrics().getRecentEvents()).extracting(RetryEvent::type)
			.contains(RetryEventType.BUDGET_REJECTION);
	}

	@Test
	void successesRefillTheBudget() throws Exception {
		RetryTemplate template = RetryTemplate.builder().virtualTime(this.time)
			.config(RetryConfig.builder().budget(RetryBudgetConfig.builder().maxTokens(10).tokenRatio(0.5).build(), null)
				.build())
			.build();
		assertThatThrownBy(() -> template.execute(this::failing)).isInstanceOf(IOException.class)
			.hasMessage("down");
		assertThat(template.getBudget().getTokens()).isEqualTo(7.0);
		template.execute(context -> "ok");
		assertThat(template.getBudget().getTokens()).isEqualTo(7.5);
	}

	@Test
	void statusListsDecideForFailuresThatCarryAStatus() {
		StatusExtractor http = new StatusExtractor() {
			@Override
			public Kind kind() {
				return Kind.HTTP;
			}

			@Override
			public int statusOf(Throwable failure) {
				return (failure instanceof HttpFailure httpFailure) ? httpFailure.status : NO_STATUS;
			}
		};
		RetryTemplate template = RetryTemplate.builder().virtualTime(this.time)
			.config(RetryConfig.builder().retryOn(IOException.class)
				.httpStatus(StatusCodes.parse("429,500-599", StatusExtractor.Kind.HTTP))
				.statusExtractors(java.util.List.of(http)).build())
			.build();
		assertThat(attemptsFor(template, new HttpFailure(503))).isEqualTo(3);
		assertThat(attemptsFor(template, new HttpFailure(429))).isEqualTo(3);
		assertThat(attemptsFor(template, new HttpFailure(404))).isEqualTo(1);
		assertThat(attemptsFor(template, new IllegalStateException(new HttpFailure(502)))).isEqualTo(3);
		assertThat(attemptsFor(template, new IOException("no status: classified by retryOn"))).isEqualTo(3);
		assertThat(attemptsFor(template, new IllegalStateException("no status, not listed"))).isEqualTo(1);
	}

	static final class HttpFailure extends RuntimeException {

		final int status;

		HttpFailure(int status) {
			super("HTTP " + status);
			this.status = status;
		}

	}

}
