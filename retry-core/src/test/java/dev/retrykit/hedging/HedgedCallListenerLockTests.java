package dev.retrykit.hedging;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import dev.retrykit.RetryConfig;
import dev.retrykit.RetryListener;
import dev.retrykit.RetryTemplate;
import dev.retrykit.VirtualTime;
import dev.retrykit.circuit.CircuitBreaker;
import dev.retrykit.circuit.CircuitBreakerConfig;
import dev.retrykit.context.RetryContext;
import dev.retrykit.spi.RetryScheduler;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A hedged call's listeners run outside the call's lock: a listener that blocks holds up only what
 * waits for it (its own copy), never another copy's ending; a listener that completes or cancels the
 * caller's future from inside a callback ends the call once, with every circuit permit given back; a
 * listener that throws an {@link Error} breaks nothing. The order per copy stays as before, and
 * {@code close} comes once and last. Time is virtual; the threads here only carry what blocks.
 */
class HedgedCallListenerLockTests {

	private final VirtualTime time = new VirtualTime();

	private final Downstream downstream = new Downstream();

	private final ExecutorService threads = Executors.newCachedThreadPool();

	private final Recorder recorder = new Recorder();

	@AfterEach
	void stopThreads() {
		this.threads.shutdownNow();
	}

	private RetryTemplate template(RetryConfig config, @Nullable CircuitBreaker breaker) {
		dev.retrykit.RetryTemplateBuilder builder = RetryTemplate.builder().name("search").virtualTime(this.time).config(config)
			.listener(this.recorder);
		return ((breaker != null) ? builder.circuitBreaker(breaker) : builder).build();
	}

	private static RetryConfig hedged(int copies) {
		return RetryConfig.builder().maxAttempts(copies)
			.hedging(HedgingConfig.builder().delay(Duration.ofMillis(10)).build()).build();
	}

	@Test
	void aListenerBlockedInACopysBeforeAttemptDoesNotKeepAnotherCopyFromEndingTheCall() throws Exception {
		CountDownLatch entered = new CountDownLatch(1);
		CountDownLatch gate = new CountDownLatch(1);
		this.recorder.beforeAttempt = context -> {
			if (context.getRetryCount() == 1) {
				entered.countDown();
				await(gate);
			}
		};
		RetryTemplate template = template(hedged(3), null);
		CompletableFuture<String> call = template.executeAsync(this.downstream);
		Future<?> timer = this.threads.submit(() -> this.time.advance(Duration.ofMillis(10)));
		try {
			assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
			this.threads.submit(() -> this.downstream.copy(1).complete("first"));

			assertThat(call).succeedsWithin(Duration.ofSeconds(5)).isEqualTo("first");
		}
		finally {
			gate.countDown();
		}
		timer.get(10, TimeUnit.SECONDS);
		// Copy 2 was cancelled while its beforeAttempt ran: its supplier never ran, close waited for it.
		assertThat(this.downstream.calls()).isEqualTo(1);
		assertThat(this.recorder.told).containsOnlyOnce("close").endsWith("attemptReturned 2", "close")
			.containsSubsequence("beforeAttempt 2", "attemptReturned 2");
	}

	@Test
	void aListenerBlockedInOnErrorOfABlockingCopyDoesNotKeepTheOtherCopyFromWinning() throws Exception {
		ExecutorService copies = Executors.newCachedThreadPool();
		CountDownLatch firstMayFail = new CountDownLatch(1);
		CountDownLatch secondMayAnswer = new CountDownLatch(1);
		CountDownLatch entered = new CountDownLatch(1);
		CountDownLatch gate = new CountDownLatch(1);
		this.recorder.onError = context -> {
			if (context.getRetryCount() == 0) {
				entered.countDown();
				await(gate);
			}
		};
		RetryTemplate template = template(RetryConfig.builder().maxAttempts(3)
			.hedging(HedgingConfig.builder().delay(Duration.ofMillis(10)).executor(copies).build()).build(), null);
		try {
			CompletableFuture<String> caller = CompletableFuture.supplyAsync(() -> {
				try {
					return template.execute(context -> {
						if (context.getRetryCount() == 0) {
							await(firstMayFail);
							throw new IOException("first down");
						}
						await(secondMayAnswer);
						return "copy " + (context.getRetryCount() + 1);
					});
				}
				catch (IOException ex) {
					throw new java.io.UncheckedIOException(ex);
				}
			}, this.threads);
			BlockingDownstream.await(() -> this.time.pendingTasks() > 0, "the timer for the next copy");
			this.time.advance(Duration.ofMillis(10));
			BlockingDownstream.await(() -> this.recorder.told.contains("beforeAttempt 2"), "the second copy");
			firstMayFail.countDown();
			assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();

			secondMayAnswer.countDown();

			assertThat(caller).succeedsWithin(Duration.ofSeconds(5)).isEqualTo("copy 2");
		}
		finally {
			gate.countDown();
			secondMayAnswer.countDown();
		}
		BlockingDownstream.await(() -> this.recorder.told.contains("close"), "close");
		assertThat(this.recorder.told).containsOnlyOnce("close").last().isEqualTo("close");
		assertThat(this.recorder.told).containsSubsequence("onError 1", "onRetry 1");
		copies.shutdownNow();
	}

	@Test
	void aListenerThatCompletesTheCallersFutureInBeforeAttemptEndsTheCallOnceAndGivesEveryPermitBack() {
		CircuitBreaker breaker = CircuitBreaker.create("search",
				CircuitBreakerConfig.builder().timeout(Duration.ofSeconds(1)).maxRequests(3).build(), this.time);
		AtomicReference<CompletableFuture<String>> caller = new AtomicReference<>();
		this.recorder.beforeAttempt = context -> {
			if (context.getRetryCount() == 1) {
				caller.get().complete("fallback");
			}
		};
		RetryTemplate template = template(hedged(3), breaker);
		breaker.tripOpen();
		this.time.advance(Duration.ofSeconds(1));
		CompletableFuture<String> call = template.executeAsync(this.downstream);
		caller.set(call);

		this.time.advance(Duration.ofMillis(10));

		assertThat(call).isCompletedWithValue("fallback");
		assertThat(this.downstream.calls()).as("no copy starts once the caller's future completed").isEqualTo(1);
		assertThat(this.downstream.copy(1).cancels).isEqualTo(1);
		assertThat(breaker.getMetrics().trialCallsInFlight()).isZero();
		this.downstream.copy(1).complete("late");
		this.time.advance(Duration.ofSeconds(1));
		assertThat(this.recorder.told).containsOnlyOnce("close").last().isEqualTo("close");
		assertThat(this.downstream.calls()).isEqualTo(1);
	}

	@Test
	void aListenerThatCancelsTheCallInOnErrorClosesItOnceAndLast() {
		AtomicReference<CompletableFuture<String>> caller = new AtomicReference<>();
		this.recorder.onError = context -> caller.get().cancel(true);
		RetryTemplate template = template(RetryConfig.builder().maxAttempts(3).retryOn(List.of(IOException.class))
			.hedging(HedgingConfig.builder().delay(Duration.ofMillis(10)).build()).build(), null);
		CompletableFuture<String> call = template.executeAsync(this.downstream);
		caller.set(call);
		this.time.advance(Duration.ofMillis(10));

		this.downstream.copy(1).completeExceptionally(new IllegalStateException("not retryable"));

		assertThat(call).isCompletedExceptionally();
		assertThat(this.downstream.copy(2).cancels).isEqualTo(1);
		assertThat(this.recorder.told).containsOnlyOnce("close").last().isEqualTo("close");
		assertThat(template.getMetrics().getFailedCallsWithRetry() + template.getMetrics().getFailedCallsWithoutRetry())
			.isLessThanOrEqualTo(1);
	}

	@Test
	void aListenerThatCancelsTheCallInOnErrorOfARetryableFailureIsToldNothingAfterClose() {
		AtomicReference<CompletableFuture<String>> caller = new AtomicReference<>();
		this.recorder.onError = context -> caller.get().cancel(true);
		RetryTemplate template = template(hedged(3), null);
		CompletableFuture<String> call = template.executeAsync(this.downstream);
		caller.set(call);
		this.time.advance(Duration.ofMillis(10));

		this.downstream.copy(2).completeExceptionally(new IOException("second down"));

		assertThat(call).isCancelled().isCompletedExceptionally();
		assertThat(this.downstream.calls()).isEqualTo(2);
		assertThat(this.recorder.told).containsOnlyOnce("close").last().isEqualTo("close");
	}

	@Test
	void aListenerThatThrowsAnErrorEverywhereLeavesTheCallEndedAndEveryPermitGivenBack() {
		CircuitBreaker breaker = CircuitBreaker.create("search",
				CircuitBreakerConfig.builder().timeout(Duration.ofSeconds(1)).maxRequests(3).build(), this.time);
		this.recorder.beforeAttempt = context -> {
			throw new StackOverflowError("listener");
		};
		this.recorder.onError = this.recorder.beforeAttempt;
		this.recorder.onSuccess = this.recorder.beforeAttempt;
		RetryTemplate template = template(hedged(3), breaker);
		breaker.tripOpen();
		this.time.advance(Duration.ofSeconds(1));
		CompletableFuture<String> call = template.executeAsync(this.downstream);
		this.time.advance(Duration.ofMillis(20));

		this.downstream.copy(2).completeExceptionally(new IOException("second down"));
		this.downstream.copy(3).complete("third");

		assertThat(call).isCompletedWithValue("third");
		assertThat(breaker.getMetrics().trialCallsInFlight()).isZero();
		assertThat(template.getMetrics().getListenerFailures()).isGreaterThanOrEqualTo(5);
		assertThat(this.recorder.told).containsOnlyOnce("close").last().isEqualTo("close");
	}

	@Test
	void aListenerBlockedOnACopysTimeoutDoesNotHoldUpTheTimerForOtherCalls() throws Exception {
		CountDownLatch entered = new CountDownLatch(1);
		CountDownLatch gate = new CountDownLatch(1);
		java.util.concurrent.atomic.AtomicBoolean first = new java.util.concurrent.atomic.AtomicBoolean(true);
		this.recorder.onError = context -> {
			if (context.getLastThrowable() instanceof java.util.concurrent.TimeoutException && first.getAndSet(false)) {
				entered.countDown();
				await(gate);
			}
		};
		// Delays in virtual time; what is handed on at once (a due copy's start, a timeout) runs on a thread.
		RetryScheduler split = (task, delay, unit) -> {
			if (delay > 0) {
				return this.time.schedule(task, delay, unit);
			}
			this.threads.execute(task);
			return this.time.schedule(() -> {
			}, 0, unit);
		};
		RetryTemplate template = RetryTemplate.builder().name("search").sleeper(this.time).timeSource(this.time)
			.scheduler(split).config(RetryConfig.builder().maxAttempts(3).attemptTimeout(Duration.ofMillis(50))
				.hedging(HedgingConfig.builder().delay(Duration.ofMillis(40)).build()).build())
			.listener(this.recorder).build();
		java.util.concurrent.atomic.AtomicInteger callsOfB = new java.util.concurrent.atomic.AtomicInteger();
		java.util.concurrent.atomic.AtomicBoolean seen = new java.util.concurrent.atomic.AtomicBoolean();
		template.executeAsync(() -> new CompletableFuture<String>());
		// After 20 ms the clock runs until the listener blocked and the second call hedged, in whichever order
		// they come (or until the test ended), bounded in real time, not to a fixed virtual time (however far):
		// a thread of the pool that arms the timer reads the time, and the clock may move on before the pass
		// is scheduled (relative to the time then), so a pass may fall later than it was computed for.
		Future<?> clock = this.threads.submit(() -> {
			this.time.advance(Duration.ofMillis(20));
			template.executeAsync(() -> {
				callsOfB.incrementAndGet();
				return new CompletableFuture<String>();
			});
			BlockingDownstream.advanceUntil(this.time, Duration.ofMillis(1),
					() -> seen.get() || (entered.getCount() == 0 && callsOfB.get() >= 2),
					"the blocked listener and the second call's hedge");
		});
		try {
			assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();

			// The first call's first copy timed out at 50 ms and its listener blocks; the second call hedges at 60 ms.
			BlockingDownstream.await(() -> callsOfB.get() >= 2, "the second call's hedge");
		}
		finally {
			seen.set(true);
			gate.countDown();
		}
		clock.get(10, TimeUnit.SECONDS);
	}

	@Test
	void theEndOfACallWithListenersNeverWaitsForACopysOwnCode() throws Exception {
		ExecutorService copies = Executors.newCachedThreadPool();
		CountDownLatch hung = new CountDownLatch(1);
		RetryTemplate template = RetryTemplate.builder().name("search").virtualTime(this.time)
			.config(RetryConfig.builder().maxAttempts(2).maxDuration(Duration.ofMillis(200))
				.hedging(HedgingConfig.builder().delay(Duration.ofMillis(10)).executor(copies).build()).build())
			.listener(this.recorder).build();
		try {
			CompletableFuture<String> caller = CompletableFuture.supplyAsync(() -> template.execute(context -> {
				await(hung);
				return "never";
			}), this.threads);
			BlockingDownstream.await(() -> this.recorder.told.contains("beforeAttempt 1"), "the first copy");
			// Until the caller is done, bounded in real time, not to a fixed virtual time: the caller's thread
			// arms the timer relative to the time it read, which this thread may have moved on from meanwhile.
			BlockingDownstream.advanceUntil(this.time, Duration.ofMillis(10), caller::isDone, "the caller's end");

			assertThat(caller).failsWithin(Duration.ofSeconds(5)).withThrowableOfType(ExecutionException.class)
				.withCauseInstanceOf(java.util.concurrent.TimeoutException.class);
			assertThat(this.recorder.told).containsOnlyOnce("close");
		}
		finally {
			hung.countDown();
			copies.shutdownNow();
		}
	}

	@Test
	void theOutcomesOfACallAreToldOneAtATimeInTheOrderDecidedWhileTheCallGoesOn() throws Exception {
		ExecutorService copies = Executors.newCachedThreadPool();
		CountDownLatch firstMayFail = new CountDownLatch(1);
		CountDownLatch secondMayFail = new CountDownLatch(1);
		CountDownLatch entered = new CountDownLatch(1);
		CountDownLatch gate = new CountDownLatch(1);
		this.recorder.onError = context -> {
			if (context.getRetryCount() == 0) {
				entered.countDown();
				await(gate);
			}
		};
		RetryTemplate template = template(RetryConfig.builder().maxAttempts(3)
			.hedging(HedgingConfig.builder().delay(Duration.ofMillis(10)).executor(copies).build()).build(), null);
		try {
			CompletableFuture<String> caller = CompletableFuture.supplyAsync(() -> {
				try {
					return template.execute(context -> {
						if (context.getRetryCount() == 0) {
							await(firstMayFail);
							throw new IOException("first down");
						}
						if (context.getRetryCount() == 1) {
							await(secondMayFail);
							throw new IOException("second down");
						}
						return "third";
					});
				}
				catch (IOException ex) {
					throw new java.io.UncheckedIOException(ex);
				}
			}, this.threads);
			BlockingDownstream.await(() -> this.time.pendingTasks() > 0, "the timer for the next copy");
			this.time.advance(Duration.ofMillis(10));
			BlockingDownstream.await(() -> this.recorder.told.contains("beforeAttempt 2"), "the second copy");
			firstMayFail.countDown();
			assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();

			secondMayFail.countDown();

			// The second copy's failure is decided (and starts the third copy, which wins) while the
			// listener is still told about the first's: its onError waits for it, the call does not.
			assertThat(caller).succeedsWithin(Duration.ofSeconds(5)).isEqualTo("third");
			assertThat(template.getMetrics().getHedgesLost()).isEqualTo(1);
			assertThat(this.recorder.told).doesNotContain("onError 2", "onSuccess 3", "close");
		}
		finally {
			gate.countDown();
			secondMayFail.countDown();
		}
		BlockingDownstream.await(() -> this.recorder.told.contains("close"), "close");
		assertThat(this.recorder.told).containsSubsequence("onError 1", "onRetry 1", "onError 2", "onRetry 2",
				"onSuccess 3", "close").containsOnlyOnce("close").last().isEqualTo("close");
		copies.shutdownNow();
	}

	private static void await(CountDownLatch latch) {
		try {
			if (!latch.await(30, TimeUnit.SECONDS)) {
				throw new AssertionError("the test never opened the gate");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new AssertionError(ex);
		}
	}

	/** Records each callback with its copy's number; runs the test's hook first where one is set. */
	private static final class Recorder implements RetryListener {

		final List<String> told = new CopyOnWriteArrayList<>();

		volatile Consumer<RetryContext> beforeAttempt = context -> {
		};

		volatile Consumer<RetryContext> onError = context -> {
		};

		volatile Consumer<RetryContext> onSuccess = context -> {
		};

		@Override
		public void beforeAttempt(RetryContext context) {
			record("beforeAttempt", context);
			this.beforeAttempt.accept(context);
		}

		@Override
		public void attemptReturned(RetryContext context) {
			record("attemptReturned", context);
		}

		@Override
		public void onSuccess(RetryContext context, @Nullable Object result) {
			record("onSuccess", context);
			this.onSuccess.accept(context);
		}

		@Override
		public void onError(RetryContext context, @Nullable Throwable failure) {
			record("onError", context);
			this.onError.accept(context);
		}

		@Override
		public void onRetry(RetryContext context, Duration delay) {
			record("onRetry", context);
		}

		@Override
		public void close(RetryContext context, @Nullable Throwable failure) {
			this.told.add("close");
		}

		private void record(String callback, RetryContext context) {
			this.told.add(callback + " " + (context.getRetryCount() + 1));
		}

	}

}
