package dev.retrykit.hedging;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import dev.retrykit.context.CallOutcome;
import dev.retrykit.RetryConfig;
import dev.retrykit.context.RetryContext;
import dev.retrykit.RetryEvent;
import dev.retrykit.RetryEventType;
import dev.retrykit.RetryListener;
import dev.retrykit.RetryMetrics;
import dev.retrykit.RetryTemplate;
import dev.retrykit.VirtualTime;
import dev.retrykit.budget.RetryBudget;
import dev.retrykit.budget.RetryBudgetConfig;
import dev.retrykit.circuit.CircuitBreaker;
import dev.retrykit.circuit.CircuitBreakerConfig;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Hedged async calls in virtual time: when copies start, which one wins, what happens to the others,
 * and what the budget, the circuit and a delay hint do to hedges.
 */
class HedgedCallTests {

	private final VirtualTime time = new VirtualTime();

	private final Downstream downstream = new Downstream();

	private final List<String> callbacks = new ArrayList<>();

	private RetryTemplate template(int copies, HedgingConfig hedging) {
		return template(RetryConfig.builder().maxAttempts(copies).hedging(hedging).build());
	}

	private RetryTemplate template(RetryConfig config) {
		return RetryTemplate.builder().name("search").virtualTime(this.time).config(config)
			.listener(new RetryListener() {
				@Override
				public void onSuccess(RetryContext context, @Nullable Object result) {
					HedgedCallTests.this.callbacks.add("success " + result);
				}

				@Override
				public void onError(RetryContext context, @Nullable Throwable failure) {
					HedgedCallTests.this.callbacks.add("error " + failure);
				}
			})
			.build();
	}

	private static HedgingConfig fixed(long millis) {
		return HedgingConfig.builder().delay(Duration.ofMillis(millis)).build();
	}

	private void advanceMillis(double millis) {
		this.time.advance(Duration.ofNanos((long) (millis * 1_000_000)));
	}

	private static List<RetryEventType> types(RetryMetrics metrics) {
		return metrics.getRecentEvents().stream().map(RetryEvent::type).toList();
	}

	@Test
	void theNextCopyStartsAtTheDelayAndNotBefore() {
		RetryTemplate template = template(3, fixed(10));
		CompletableFuture<String> call = template.executeAsync(this.downstream);
		assertThat(this.downstream.calls()).isEqualTo(1);

		this.time.advance(Duration.ofMillis(10).minusNanos(1));
		assertThat(this.downstream.calls()).isEqualTo(1);
		this.time.advance(Duration.ofNanos(1));
		assertThat(this.downstream.calls()).isEqualTo(2);
		this.time.advance(Duration.ofMillis(10).minusNanos(1));
		assertThat(this.downstream.calls()).isEqualTo(2);
		this.time.advance(Duration.ofNanos(1));
		assertThat(this.downstream.calls()).isEqualTo(3);
		advanceMillis(1000);
		assertThat(this.downstream.calls()).isEqualTo(3);
		assertThat(call).isNotDone();
		assertThat(template.getMetrics().getHedgesStarted()).isEqualTo(2);
	}

	@Test
	void aCallThatSucceedsAtOnceStartsNoCopyAndLeavesNothingPending() {
		RetryTemplate template = template(3, fixed(10));

		CompletableFuture<String> call = template.executeAsync(() -> CompletableFuture.completedFuture("at once"));

		assertThat(call).isCompletedWithValue("at once");
		assertThat(this.time.pendingTasks()).isZero();
		assertThat(template.getMetrics().getSuccessfulCallsWithoutRetry()).isEqualTo(1);
	}

	@Test
	void theFirstSuccessWinsAndEveryLoserIsCancelledAndNeverHeardOfAgain() {
		RetryTemplate template = template(3, fixed(10));
		CompletableFuture<String> call = template.executeAsync(this.downstream);
		advanceMillis(25);
		assertThat(this.downstream.calls()).isEqualTo(3);

		this.downstream.copy(2).complete("second");

		assertThat(call).isCompletedWithValue("second");
		assertThat(this.downstream.copy(1).cancels).isEqualTo(1);
		assertThat(this.downstream.copy(3).cancels).isEqualTo(1);
		assertThat(this.downstream.copy(2).cancels).isZero();
		this.downstream.copy(1).complete("first, too late");
		this.downstream.copy(3).completeExceptionally(new IOException("third, too late"));
		assertThat(this.callbacks).containsExactly("success second");
		assertThat(call).isCompletedWithValue("second");
		RetryMetrics metrics = template.getMetrics();
		assertThat(metrics.getHedgesStarted()).isEqualTo(2);
		assertThat(metrics.getHedgesWon()).isEqualTo(1);
		assertThat(metrics.getHedgesLost()).isEqualTo(1);
		assertThat(metrics.getHedgesCancelled()).isZero();
		assertThat(metrics.getAttempts()).isEqualTo(3);
		assertThat(types(metrics)).containsExactly(RetryEventType.HEDGE, RetryEventType.HEDGE, RetryEventType.HEDGE_WON);
		advanceMillis(1000);
		assertThat(this.downstream.calls()).isEqualTo(3);
	}

	@Test
	void aCallThatAHedgeWonCountsAsSuccessfulWithRetryAndTheFirstCopysWinAsWithout() {
		List<CallOutcome> outcomes = new ArrayList<>();
		RetryTemplate observed = RetryTemplate.builder().name("search").virtualTime(this.time)
			.config(RetryConfig.builder().maxAttempts(2).hedging(fixed(10)).build())
			.listener(new RetryListener() {
				@Override
				public void close(RetryContext context, @Nullable Throwable failure) {
					outcomes.add(context.getOutcome());
				}
			})
			.build();
		CompletableFuture<String> wonByHedge = observed.executeAsync(this.downstream);
		advanceMillis(10);
		this.downstream.copy(2).complete("hedge");
		CompletableFuture<String> wonByFirst = observed.executeAsync(this.downstream);
		advanceMillis(10);
		this.downstream.copy(3).complete("first");

		assertThat(wonByHedge).isCompletedWithValue("hedge");
		assertThat(wonByFirst).isCompletedWithValue("first");
		RetryMetrics metrics = observed.getMetrics();
		assertThat(metrics.getSuccessfulCallsWithRetry()).isEqualTo(1);
		assertThat(metrics.getSuccessfulCallsWithoutRetry()).isEqualTo(1);
		assertThat(outcomes).containsExactly(CallOutcome.SUCCESSFUL_WITH_RETRY, CallOutcome.SUCCESSFUL_WITHOUT_RETRY);
	}

	@Test
	void eachCopyKnowsItsAttemptAndWhetherItIsAHedge() {
		RetryTemplate template = template(3, fixed(10));
		template.executeAsync(this.downstream);
		advanceMillis(20);

		assertThat(this.downstream.copies).extracting(copy -> copy.retryCount).containsExactly(0, 1, 2);
		assertThat(this.downstream.copies).extracting(copy -> copy.hedged).containsExactly(null, true, true);
	}

	@Test
	void aRetryableFailureStartsTheNextCopyAtOnceAndTheDelayCountsFromIt() {
		RetryTemplate template = template(3, fixed(10));
		CompletableFuture<String> call = template.executeAsync(this.downstream);
		advanceMillis(4);

		this.downstream.copy(1).completeExceptionally(new IOException("down"));

		assertThat(this.downstream.calls()).isEqualTo(2);
		advanceMillis(9.999);
		assertThat(this.downstream.calls()).isEqualTo(2);
		advanceMillis(0.001);
		assertThat(this.downstream.calls()).isEqualTo(3);
		this.downstream.copy(3).complete("third");
		assertThat(call).isCompletedWithValue("third");
		assertThat(this.downstream.copy(2).cancels).isEqualTo(1);
		assertThat(template.getMetrics().getHedgesWon()).isEqualTo(1);
		assertThat(template.getMetrics().getHedgesLost()).isEqualTo(1);
	}

	@Test
	void aNonRetryableFailureEndsTheCallAndCancelsTheCopiesInFlight() {
		RetryTemplate template = template(RetryConfig.builder().maxAttempts(3).hedging(fixed(10))
			.ignore(IllegalStateException.class).build());
		CompletableFuture<String> call = template.executeAsync(this.downstream);
		advanceMillis(20);
		IllegalStateException fatal = new IllegalStateException("fatal");

		this.downstream.copy(1).completeExceptionally(fatal);

		assertThat(call).isCompletedExceptionally();
		assertThat(call.handle((value, failure) -> failure).join()).isSameAs(fatal);
		assertThat(this.downstream.copy(2).cancels).isEqualTo(1);
		assertThat(this.downstream.copy(3).cancels).isEqualTo(1);
		assertThat(template.getMetrics().getHedgesCancelled()).isEqualTo(2);
		assertThat(template.getMetrics().getFailedCallsWithoutRetry()).isEqualTo(1);
		this.downstream.copy(2).complete("too late");
		advanceMillis(1000);
		assertThat(this.downstream.calls()).isEqualTo(3);
		assertThat(types(template.getMetrics())).endsWith(RetryEventType.NON_RETRYABLE_FAILURE);
	}

	@Test
	void whenEveryCopyFailsTheCallIsExhaustedAndRecovers() {
		RetryTemplate template = template(2, fixed(10));
		CompletableFuture<String> call = template.executeAsync(this.downstream,
				failure -> CompletableFuture.completedFuture("recovered from " + failure.getMessage()));
		advanceMillis(10);
		this.downstream.copy(2).completeExceptionally(new IOException("second"));
		assertThat(call).isNotDone();

		this.downstream.copy(1).completeExceptionally(new IOException("first"));

		assertThat(call).isCompletedWithValue("recovered from first");
		assertThat(template.getMetrics().getRecoveries()).isEqualTo(1);
		assertThat(template.getMetrics().getHedgesLost()).isEqualTo(1);
		assertThat(types(template.getMetrics())).endsWith(RetryEventType.EXHAUSTED, RetryEventType.RECOVERED);
	}

	@Test
	void retryOnResultAppliesToEachCopy() {
		RetryTemplate template = template(RetryConfig.builder().maxAttempts(3).hedging(fixed(10))
			.retryOnResult("empty"::equals).build());
		CompletableFuture<String> call = template.executeAsync(this.downstream);

		this.downstream.copy(1).complete("empty");
		assertThat(this.downstream.calls()).isEqualTo(2);
		this.downstream.copy(2).complete("full");

		assertThat(call).isCompletedWithValue("full");
	}

	@Test
	void hedgesAskTheBudgetButTakeNoTokenAsInGrpcA6() {
		RetryBudget budget = RetryBudget.create("search", RetryBudgetConfig.builder().maxTokens(2).build());
		RetryTemplate template = RetryTemplate.builder().name("search").virtualTime(this.time).maxAttempts(3)
			.hedging(fixed(10)).budget(budget).build();
		CompletableFuture<String> call = template.executeAsync(this.downstream);

		advanceMillis(100);

		// 2 tokens, retries while more than 1: a hedge that is only slow costs nothing.
		assertThat(this.downstream.calls()).isEqualTo(3);
		assertThat(budget.getTokens()).isEqualTo(2.0);
		assertThat(template.getMetrics().getHedgesRefused()).isZero();
		this.downstream.copy(1).complete("first");
		assertThat(call).isCompletedWithValue("first");
		assertThat(template.getMetrics().getHedgesLost()).isEqualTo(2);
	}

	@Test
	void anOpenCircuitRefusesHedges() {
		CircuitBreaker breaker = CircuitBreaker.create("search", CircuitBreakerConfig.builder().build(), this.time);
		RetryTemplate template = RetryTemplate.builder().name("search").virtualTime(this.time).maxAttempts(3)
			.hedging(fixed(10)).circuitBreaker(breaker).build();
		CompletableFuture<String> call = template.executeAsync(this.downstream);

		breaker.forceOpen();
		advanceMillis(100);

		assertThat(this.downstream.calls()).isEqualTo(1);
		assertThat(template.getMetrics().getHedgesRefused()).isEqualTo(1);
		this.downstream.copy(1).complete("first");
		assertThat(call).isCompletedWithValue("first");
	}

	@Test
	void everyCopyHoldsACircuitPermitThatIsGivenBackOnceWhenItLoses() {
		CircuitBreaker breaker = CircuitBreaker.create("search",
				CircuitBreakerConfig.builder().timeout(Duration.ofSeconds(1)).maxRequests(3).build(), this.time);
		RetryTemplate template = RetryTemplate.builder().name("search").virtualTime(this.time).maxAttempts(3)
			.hedging(fixed(10)).circuitBreaker(breaker).build();
		breaker.tripOpen();
		advanceMillis(1000);
		CompletableFuture<String> call = template.executeAsync(this.downstream);
		advanceMillis(20);
		assertThat(breaker.getMetrics().trialCallsInFlight()).isEqualTo(3);

		this.downstream.copy(3).complete("third");
		this.downstream.copy(1).complete("late");

		assertThat(call).isCompletedWithValue("third");
		assertThat(breaker.getMetrics().trialCallsInFlight()).isZero();
	}

	@Test
	void aRetryAfterHintDelaysTheNextCopy() {
		RetryTemplate template = template(RetryConfig.builder().maxAttempts(3).hedging(fixed(10))
			.delayHint(failure -> Duration.ofMillis(50)).build());
		CompletableFuture<String> call = template.executeAsync(this.downstream);
		advanceMillis(2);

		this.downstream.copy(1).completeExceptionally(new IOException("429, retry after 50ms"));

		advanceMillis(49.999);
		assertThat(this.downstream.calls()).isEqualTo(1);
		advanceMillis(0.001);
		assertThat(this.downstream.calls()).isEqualTo(2);
		this.downstream.copy(2).complete("second");
		assertThat(call).isCompletedWithValue("second");
	}

	@Test
	void cancellingTheCallCancelsEveryCopyInFlight() {
		RetryTemplate template = template(3, fixed(10));
		CompletableFuture<String> call = template.executeAsync(this.downstream);
		advanceMillis(10);

		assertThat(call.cancel(true)).isTrue();

		assertThat(this.downstream.copies).allSatisfy(copy -> assertThat(copy.cancels).isEqualTo(1));
		assertThat(template.getMetrics().getHedgesCancelled()).isEqualTo(1);
		advanceMillis(1000);
		assertThat(this.downstream.calls()).isEqualTo(2);
		this.downstream.copy(2).complete("too late");
		assertThat(this.callbacks).isEmpty();
	}

	@Test
	void aZeroDelaySendsEveryCopyAtOnce() {
		RetryTemplate template = template(3, HedgingConfig.builder().delay(Duration.ZERO).maxExtraLoad(2).build());

		CompletableFuture<String> call = template.executeAsync(this.downstream);

		assertThat(this.downstream.calls()).isEqualTo(3);
		this.downstream.copy(3).complete("third");
		assertThat(call).isCompletedWithValue("third");
	}

	@Test
	void anAttemptThatThrowsIsAFailedCopy() {
		RetryTemplate template = template(2, fixed(10));
		CompletableFuture<String> call = template.executeAsync(() -> {
			throw new CompletionException(new IOException("thrown"));
		});

		assertThat(call).isCompletedExceptionally();
		assertThat(template.getMetrics().getAttempts()).isEqualTo(2);
		assertThat(this.time.pendingTasks()).isZero();
	}

	@Test
	void aSynchronousCallOfAHedgingInstanceStillBacksOff() throws Exception {
		RetryTemplate template = RetryTemplate.builder().name("search").virtualTime(this.time).maxAttempts(3)
			.backoff(dev.retrykit.backoff.BackoffPolicy.fixed(Duration.ofMillis(100))).hedging(fixed(10)).build();
		int[] attempts = { 0 };

		String result = template.execute(context -> {
			if (++attempts[0] < 3) {
				throw new IOException("down");
			}
			return "third";
		});

		assertThat(result).isEqualTo("third");
		assertThat(this.time.sleeps()).containsExactly(Duration.ofMillis(100), Duration.ofMillis(100));
	}

}
