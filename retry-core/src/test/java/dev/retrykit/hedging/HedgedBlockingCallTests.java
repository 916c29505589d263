package dev.retrykit.hedging;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

import dev.retrykit.RetryConfig;
import dev.retrykit.context.RetryContext;
import dev.retrykit.RetryEvent;
import dev.retrykit.RetryEventType;
import dev.retrykit.RetryInterruptedException;
import dev.retrykit.RetryListener;
import dev.retrykit.RetryMetrics;
import dev.retrykit.RetryTemplate;
import dev.retrykit.VirtualTime;
import dev.retrykit.budget.RetryBudget;
import dev.retrykit.budget.RetryBudgetConfig;
import dev.retrykit.circuit.CircuitBreaker;
import dev.retrykit.circuit.CircuitBreakerConfig;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static dev.retrykit.hedging.BlockingDownstream.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Hedged blocking calls ({@code RetryTemplate.execute} with a hedging executor): the hedging delay runs
 * in virtual time, the copies on real threads that block until the test answers them.
 */
class HedgedBlockingCallTests {

	private final VirtualTime time = new VirtualTime();

	private final ExecutorService executor = Executors.newCachedThreadPool();

	private final BlockingDownstream downstream = new BlockingDownstream();

	private final List<String> callbacks = new CopyOnWriteArrayList<>();

	@AfterEach
	void stopExecutor() {
		this.executor.shutdownNow();
	}

	private RetryTemplate template(int copies) {
		return template(RetryConfig.builder().maxAttempts(copies).hedging(fixed(10, this.executor)).build());
	}

	private RetryTemplate template(RetryConfig config) {
		return RetryTemplate.builder().name("search").virtualTime(this.time).config(config)
			.listener(new RetryListener() {
				@Override
				public void onSuccess(RetryContext context, @Nullable Object result) {
					HedgedBlockingCallTests.this.callbacks.add("success " + result);
				}
			})
			.build();
	}

	/** Losers' threads interrupted: these tests watch the interrupt ({@code interruptLosers} is off by default). */
	private static HedgingConfig fixed(long millis, java.util.concurrent.Executor executor) {
		return HedgingConfig.builder().delay(Duration.ofMillis(millis)).executor(executor).interruptLosers(true).build();
	}

	private void advanceMillis(long millis) {
		this.time.advance(Duration.ofMillis(millis));
	}

	/** Starts a blocking call on a thread of its own; the test thread drives time and answers copies. */
	private static <T> Caller<T> call(Callable<T> call) {
		Caller<T> caller = new Caller<>();
		caller.thread = new Thread(() -> {
			try {
				caller.outcome.complete(call.call());
			}
			catch (Throwable ex) {
				caller.outcome.completeExceptionally(ex);
			}
			finally {
				caller.interruptedAfter = Thread.currentThread().isInterrupted();
			}
		}, "caller");
		caller.thread.start();
		return caller;
	}

	private static final class Caller<T> {

		final CompletableFuture<T> outcome = new CompletableFuture<>();

		Thread thread;

		volatile boolean interruptedAfter;

		Throwable failure() {
			await(this.outcome::isDone, "the call's end");
			return this.outcome.handle((value, ex) -> ex).join();
		}

		T result() {
			return this.outcome.join();
		}

	}

	/**
	 * Waits until the first copy reached the downstream and the caller's thread handed the call to the
	 * hedging timer, so that time advanced from here on starts the next copy.
	 */
	private void awaitFirstCopy() {
		this.downstream.awaitCalls(1);
		await(() -> this.time.pendingTasks() > 0, "the hedging timer armed for the next copy");
	}

	private static List<RetryEventType> types(RetryMetrics metrics) {
		return metrics.getRecentEvents().stream().map(RetryEvent::type).toList();
	}

	@Test
	void theNextCopyStartsAtTheDelayAndNotBefore() {
		RetryTemplate template = template(3);
		Caller<String> caller = call(() -> template.execute(this.downstream));
		awaitFirstCopy();

		this.time.advance(Duration.ofMillis(10).minusNanos(1));
		assertThat(template.getMetrics().getHedgesStarted()).isZero();
		this.time.advance(Duration.ofNanos(1));
		assertThat(template.getMetrics().getHedgesStarted()).isEqualTo(1);
		this.downstream.awaitCalls(2);
		this.time.advance(Duration.ofMillis(10).minusNanos(1));
		assertThat(template.getMetrics().getHedgesStarted()).isEqualTo(1);
		this.time.advance(Duration.ofNanos(1));
		this.downstream.awaitCalls(3);
		advanceMillis(1000);
		assertThat(template.getMetrics().getHedgesStarted()).isEqualTo(2);
		assertThat(this.downstream.calls()).isEqualTo(3);
		assertThat(caller.outcome).isNotDone();

		this.downstream.copy(1).answer.complete("first");
		assertThat(caller.result()).isEqualTo("first");
	}

	@Test
	void theFirstSuccessWinsAndEveryLoserIsInterruptedAndNeverHeardOfAgain() {
		RetryTemplate template = template(3);
		Caller<String> caller = call(() -> template.execute(this.downstream));
		awaitFirstCopy();
		advanceMillis(10);
		this.downstream.awaitCalls(2);
		advanceMillis(10);
		this.downstream.awaitCalls(3);

		this.downstream.copy(2).answer.complete("second");

		assertThat(caller.result()).isEqualTo("second");
		await(() -> this.downstream.copy(1).wasInterrupted() && this.downstream.copy(3).wasInterrupted(),
				"the losers' interrupts");
		assertThat(this.downstream.copy(2).wasInterrupted()).isFalse();
		this.downstream.copies.forEach(copy -> await(copy.returned::isDone, "every copy's return"));
		assertThat(this.callbacks).containsExactly("success second");
		RetryMetrics metrics = template.getMetrics();
		assertThat(metrics.getHedgesStarted()).isEqualTo(2);
		assertThat(metrics.getHedgesWon()).isEqualTo(1);
		assertThat(metrics.getHedgesLost()).isEqualTo(1);
		assertThat(metrics.getAttempts()).isEqualTo(3);
		assertThat(types(metrics)).containsExactly(RetryEventType.HEDGE, RetryEventType.HEDGE, RetryEventType.HEDGE_WON);
		assertThat(caller.interruptedAfter).isFalse();
	}

	@Test
	void aLosersThreadIsReturnedToItsPoolWithoutTheInterrupt() throws Exception {
		ExecutorService single = Executors.newFixedThreadPool(2);
		try {
			RetryTemplate template = template(RetryConfig.builder().maxAttempts(2).hedging(fixed(10, single)).build());
			Caller<String> caller = call(() -> template.execute(this.downstream));
			awaitFirstCopy();
			advanceMillis(10);
			this.downstream.copy(2).answer.complete("second");
			assertThat(caller.result()).isEqualTo("second");
			await(() -> this.downstream.copy(1).returned.isDone(), "the loser's return");

			// Both pool threads are idle again: neither may carry the loser's interrupt to its next task.
			CompletableFuture<Boolean> first = CompletableFuture.supplyAsync(() -> Thread.currentThread().isInterrupted(), single);
			CompletableFuture<Boolean> second = CompletableFuture.supplyAsync(() -> Thread.currentThread().isInterrupted(), single);
			assertThat(first.get()).isFalse();
			assertThat(second.get()).isFalse();
		}
		finally {
			single.shutdownNow();
		}
	}

	@Test
	void eachCopyKnowsItsAttemptAndWhetherItIsAHedge() {
		RetryTemplate template = template(3);
		Caller<String> caller = call(() -> template.execute(this.downstream));
		awaitFirstCopy();
		advanceMillis(10);
		this.downstream.awaitCalls(2);
		advanceMillis(10);
		this.downstream.awaitCalls(3);

		assertThat(this.downstream.copies).extracting(copy -> copy.retryCount).containsExactly(0, 1, 2);
		assertThat(this.downstream.copies).extracting(copy -> copy.hedged).containsExactly(null, true, true);
		assertThat(this.downstream.copies).allSatisfy(copy -> {
			assertThat(copy.contextIsCurrent).isTrue();
			assertThat(copy.thread).isNotSameAs(caller.thread);
		});
		this.downstream.copy(3).answer.complete("third");
		assertThat(caller.result()).isEqualTo("third");
	}

	@Test
	void aNonRetryableFailureEndsTheCallAndInterruptsEveryCopyInFlight() {
		RetryTemplate template = template(RetryConfig.builder().maxAttempts(3).retryOn(List.of(IOException.class))
			.hedging(fixed(10, this.executor)).build());
		Caller<String> caller = call(() -> template.execute(this.downstream));
		awaitFirstCopy();
		advanceMillis(10);
		this.downstream.awaitCalls(2);
		IllegalStateException fatal = new IllegalStateException("bad request");

		this.downstream.copy(2).answer.completeExceptionally(fatal);

		assertThat(caller.failure()).isSameAs(fatal);
		await(() -> this.downstream.copy(1).wasInterrupted(), "the first copy's interrupt");
		advanceMillis(1000);
		assertThat(this.downstream.calls()).isEqualTo(2);
		RetryMetrics metrics = template.getMetrics();
		assertThat(metrics.getFailedCallsWithoutRetry() + metrics.getFailedCallsWithRetry()).isEqualTo(1);
		assertThat(metrics.getHedgesCancelled()).isZero();
		assertThat(types(metrics)).contains(RetryEventType.NON_RETRYABLE_FAILURE);
	}

	@Test
	void anErrorInACopyEndsTheCallWithThatErrorAndInterruptsTheOthers() {
		RetryTemplate template = template(3);
		Caller<String> caller = call(() -> template.execute(this.downstream));
		awaitFirstCopy();
		advanceMillis(10);
		this.downstream.awaitCalls(2);
		OutOfMemoryError error = new OutOfMemoryError("copy 2");

		this.downstream.copy(2).answer.completeExceptionally(error);

		assertThat(caller.failure()).isSameAs(error);
		await(() -> this.downstream.copy(1).wasInterrupted(), "the first copy's interrupt");
		advanceMillis(1000);
		assertThat(this.downstream.calls()).isEqualTo(2);
	}

	@Test
	void aRetryableFailureStartsTheNextCopyAtOnceAndTheLastFailureIsRethrownUnchanged() {
		RetryTemplate template = template(2);
		Caller<String> caller = call(() -> template.execute(this.downstream));
		awaitFirstCopy();

		this.downstream.copy(1).answer.completeExceptionally(new IOException("first"));
		this.downstream.awaitCalls(2);
		IOException last = new IOException("second");
		this.downstream.copy(2).answer.completeExceptionally(last);

		assertThat(caller.failure()).isSameAs(last);
		assertThat(template.getMetrics().getAttempts()).isEqualTo(2);
	}

	@Test
	void aRecoveryRunsWithTheCallsContextWhenEveryCopyFailed() {
		RetryTemplate template = template(2);
		IOException last = new IOException("second");
		Caller<String> caller = call(() -> template.execute(this.downstream,
				context -> "recovered from " + context.getLastThrowable().getMessage() + ", current "
						+ (RetryTemplate.currentContext() == context)));
		awaitFirstCopy();
		this.downstream.copy(1).answer.completeExceptionally(new IOException("first"));
		this.downstream.copy(2).answer.completeExceptionally(last);

		assertThat(caller.result()).isEqualTo("recovered from second, current true");
		assertThat(template.getMetrics().getRecoveries()).isEqualTo(1);
	}

	@Test
	void aHedgeTakesNoTokenAFailedCopyDoesAndThenTheBudgetRefusesMoreCopies() throws Exception {
		RetryBudget budget = RetryBudget.create("search", RetryBudgetConfig.builder().maxTokens(2).build());
		RetryTemplate template = RetryTemplate.builder().name("search").virtualTime(this.time).maxAttempts(3)
			.hedging(fixed(10, this.executor)).budget(budget).build();
		Caller<String> caller = call(() -> template.execute(this.downstream));
		awaitFirstCopy();

		advanceMillis(10);
		this.downstream.awaitCalls(2);
		assertThat(budget.getTokens()).isEqualTo(2.0);
		this.downstream.copy(1).answer.completeExceptionally(new IOException("first"));
		BlockingDownstream.await(() -> template.getMetrics().getHedgesRefused() == 1, "the third copy's refusal");
		advanceMillis(100);

		// 2 tokens, retries while more than 1: the failure took one, so no third copy.
		assertThat(budget.getTokens()).isEqualTo(1.0);
		assertThat(template.getMetrics().getHedgesRefused()).isEqualTo(1);
		assertThat(this.downstream.calls()).isEqualTo(2);
		this.downstream.copy(2).answer.complete("second");
		assertThat(caller.result()).isEqualTo("second");
		assertThat(template.getMetrics().getHedgesWon()).isEqualTo(1);
	}

	@Test
	void everyCopyHoldsACircuitPermitThatIsGivenBackOnceWhenItLoses() {
		CircuitBreaker breaker = CircuitBreaker.create("search",
				CircuitBreakerConfig.builder().timeout(Duration.ofSeconds(1)).maxRequests(3).build(), this.time);
		RetryTemplate template = RetryTemplate.builder().name("search").virtualTime(this.time).maxAttempts(3)
			.hedging(fixed(10, this.executor)).circuitBreaker(breaker).build();
		breaker.tripOpen();
		advanceMillis(1000);
		Caller<String> caller = call(() -> template.execute(this.downstream));
		awaitFirstCopy();
		advanceMillis(10);
		this.downstream.awaitCalls(2);
		advanceMillis(10);
		this.downstream.awaitCalls(3);
		assertThat(breaker.getMetrics().trialCallsInFlight()).isEqualTo(3);

		this.downstream.copy(3).answer.complete("third");

		assertThat(caller.result()).isEqualTo("third");
		this.downstream.copies.forEach(copy -> await(copy.returned::isDone, "every copy's return"));
		assertThat(breaker.getMetrics().trialCallsInFlight()).isZero();
	}

	@Test
	void aCopyTheExecutorRefusesFailsWithTheRefusalAndTheCallGoesOnWithItsCopyInFlight() {
		AtomicInteger accepted = new AtomicInteger();
		java.util.concurrent.Executor firstOnly = task -> {
			if (accepted.getAndIncrement() > 0) {
				throw new RejectedExecutionException("saturated");
			}
			this.executor.execute(task);
		};
		RetryTemplate template = template(RetryConfig.builder().maxAttempts(3).hedging(fixed(10, firstOnly)).build());
		Caller<String> caller = call(() -> template.execute(this.downstream));
		awaitFirstCopy();

		advanceMillis(10);

		// The refused hedge failed at once, so the next copy was started as a retry, refused too: none left.
		assertThat(accepted).hasValue(3);
		assertThat(caller.outcome).isNotDone();
		this.downstream.copy(1).answer.complete("first");
		assertThat(caller.result()).isEqualTo("first");
		assertThat(this.downstream.calls()).isEqualTo(1);
	}

	@Test
	void aCallWhoseEveryCopyIsRefusedEndsWithTheRefusalInsteadOfWaiting() {
		RejectedExecutionException refusal = new RejectedExecutionException("shut down");
		RetryTemplate template = template(RetryConfig.builder().maxAttempts(2).hedging(fixed(10, task -> {
			throw refusal;
		})).build());

		assertThatExceptionOfType(RejectedExecutionException.class).isThrownBy(() -> template.execute(this.downstream))
			.isSameAs(refusal);
		assertThat(template.getMetrics().getAttempts()).isEqualTo(2);
		assertThat(this.downstream.calls()).isZero();
	}

	@Test
	void aCallerInterruptedWhileWaitingCancelsEveryCopyAndKeepsItsInterrupt() {
		RetryTemplate template = template(3);
		Caller<String> caller = call(() -> template.execute(this.downstream));
		awaitFirstCopy();
		advanceMillis(10);
		this.downstream.awaitCalls(2);

		caller.thread.interrupt();

		assertThat(caller.failure()).isInstanceOf(RetryInterruptedException.class)
			.hasMessageContaining("'search' was interrupted while it waited for its hedged copies");
		assertThat(caller.interruptedAfter).isTrue();
		await(() -> this.downstream.copy(1).wasInterrupted() && this.downstream.copy(2).wasInterrupted(),
				"every copy's interrupt");
		advanceMillis(1000);
		assertThat(this.downstream.calls()).isEqualTo(2);
		assertThat(template.getMetrics().getHedgesCancelled()).isEqualTo(1);
	}

	@Test
	void withoutAnExecutorABlockingCallRetriesOnTheCallingThreadWithTheBackoff() throws IOException {
		RetryTemplate template = template(RetryConfig.builder().maxAttempts(3)
			.hedging(HedgingConfig.builder().delay(Duration.ofMillis(10)).build()).build());
		Thread caller = Thread.currentThread();
		List<Thread> threads = new CopyOnWriteArrayList<>();

		String result = template.execute(context -> {
			threads.add(Thread.currentThread());
			if (context.getRetryCount() < 2) {
				throw new IOException("attempt " + (context.getRetryCount() + 1));
			}
			return "third";
		});

		assertThat(result).isEqualTo("third");
		assertThat(threads).containsOnly(caller).hasSize(3);
		assertThat(this.time.sleeps()).containsExactly(Duration.ofMillis(100), Duration.ofMillis(200));
		assertThat(template.getMetrics().getHedgesStarted()).isZero();
	}

}
