package dev.retrykit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.circuit.CircuitBreaker;
import dev.retrykit.circuit.CircuitBreakerConfig;
import dev.retrykit.circuit.CircuitOpenException;
import dev.retrykit.context.RetryContext;
import dev.retrykit.failback.FailbackExecutor;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link RetryListener#beforeAttempt}: called by every engine right before each attempt runs, after
 * the wait and the circuit's permit, and contained when it throws; and {@link RetryListener#attemptReturned}:
 * after every {@code beforeAttempt}, on the same thread, as soon as the attempt's code has returned to the
 * engine (before its outcome is reported), also when an attempt that was told it starts does not run.
 */
class AttemptListenerTests {

	private final VirtualTime time = new VirtualTime();

	private final List<String> calls = new CopyOnWriteArrayList<>();

	/** The threads of each beforeAttempt and attemptReturned, in order. */
	private final List<Thread> threads = new CopyOnWriteArrayList<>();

	private final RetryListener recording = new RetryListener() {
		@Override
		public boolean open(RetryContext context) {
			AttemptListenerTests.this.calls.add("open");
			return true;
		}

		@Override
		public void beforeAttempt(RetryContext context) {
			AttemptListenerTests.this.calls.add("before" + (context.getRetryCount() + 1) + "@"
					+ AttemptListenerTests.this.time.elapsed().toMillis());
			AttemptListenerTests.this.threads.add(Thread.currentThread());
		}

		@Override
		public void attemptReturned(RetryContext context) {
			AttemptListenerTests.this.calls.add("returned");
			AttemptListenerTests.this.threads.add(Thread.currentThread());
		}

		@Override
		public void onSuccess(RetryContext context, @Nullable Object result) {
			AttemptListenerTests.this.calls.add("success");
		}

		@Override
		public void onError(RetryContext context, @Nullable Throwable failure) {
			AttemptListenerTests.this.calls.add("error");
		}

		@Override
		public void close(RetryContext context, @Nullable Throwable failure) {
			AttemptListenerTests.this.calls.add("close");
		}
	};

	private RetryTemplateBuilder template() {
		return RetryTemplate.builder().virtualTime(this.time).backoff(BackoffPolicy.fixed(Duration.ofMillis(100)))
			.listener(this.recording);
	}

	@Test
	void syncCallTellsEachAttemptAfterItsWait() throws Exception {
		AtomicInteger runs = new AtomicInteger();
		String result = template().build().execute(context -> {
			if (runs.incrementAndGet() < 3) {
				throw new IOException("down");
			}
			return "ok";
		});
		assertThat(result).isEqualTo("ok");
		assertThat(this.calls).containsExactly("open", "before1@0", "returned", "error", "before2@100", "returned",
				"error", "before3@200", "returned", "success", "close");
		assertThat(this.threads).containsOnly(Thread.currentThread());
	}

	@Test
	void statefulCallTellsItsOneAttemptPerCall() {
		RetryTemplate template = template().build();
		RetryState state = RetryState.of("message-1");
		assertThatThrownBy(() -> template.execute(context -> {
			throw new IOException("down");
		}, state)).isInstanceOf(IOException.class);
		assertThat(this.calls).containsExactly("open", "before1@0", "returned", "error", "close");
	}

	@Test
	void asyncRetryTellsTheAttemptOnTheThreadThatRunsIt() {
		AtomicInteger runs = new AtomicInteger();
		List<Thread> attemptThreads = new CopyOnWriteArrayList<>();
		List<Thread> beforeThreads = new CopyOnWriteArrayList<>();
		RetryTemplate template = RetryTemplate.builder().virtualTime(this.time)
			.backoff(BackoffPolicy.fixed(Duration.ofMillis(100))).listener(new RetryListener() {
				@Override
				public void beforeAttempt(RetryContext context) {
					beforeThreads.add(Thread.currentThread());
				}
			}).build();
		CompletableFuture<String> result = template.executeAsync(() -> {
			attemptThreads.add(Thread.currentThread());
			return (runs.incrementAndGet() < 2) ? CompletableFuture.failedFuture(new IOException("down"))
					: CompletableFuture.completedFuture("ok");
		});
		this.time.advance(Duration.ofMillis(100));
		assertThat(result).isCompletedWithValue("ok");
		assertThat(beforeThreads).hasSize(2).isEqualTo(attemptThreads);
	}

	@Test
	void failbackTaskTellsEveryAttemptIncludingBackgroundOnes() {
		RetryRegistry registry = RetryRegistry.builder().virtualTime(this.time)
			.instance("audit", null, config -> config.maxAttempts(3).backoff(BackoffPolicy.fixed(Duration.ofSeconds(1))))
			.listener(this.recording).build();
		FailbackExecutor failback = registry.failback("audit");
		AtomicInteger runs = new AtomicInteger();
		failback.submit("event-1", () -> {
			if (runs.incrementAndGet() < 2) {
				throw new UncheckedIOException(new IOException("down"));
			}
		});
		this.time.advance(Duration.ofSeconds(1));
		assertThat(runs).hasValue(2);
		assertThat(this.calls).containsExactly("open", "before1@0", "returned", "error", "before2@1000", "returned",
				"success", "close");
	}

	@Test
	void anAttemptRefusedByTheOpenCircuitIsNotTold() {
		CircuitBreaker breaker = CircuitBreaker.create("cb", CircuitBreakerConfig.builder().build(), this.time);
		breaker.forceOpen();
		AtomicInteger runs = new AtomicInteger();
		RetryTemplate template = template().circuitBreaker(breaker).build();
		assertThatThrownBy(() -> template.execute(context -> runs.incrementAndGet()))
			.isInstanceOf(CircuitOpenException.class);
		assertThat(runs).hasValue(0);
		assertThat(this.calls).containsExactly("open", "close");
	}

	@Test
	void aThrowingBeforeAttemptIsCountedAndTheAttemptStillRuns() throws Exception {
		RetryTemplate template = RetryTemplate.builder().virtualTime(this.time).listener(new RetryListener() {
			@Override
			public void beforeAttempt(RetryContext context) {
				throw new IllegalStateException("listener broke");
			}
		}).build();
		String result = template.execute(context -> "ok");
		assertThat(result).isEqualTo("ok");
		assertThat(template.getMetrics().getListenerFailures()).isEqualTo(1);
		assertThat(template.getMetrics().getSuccessfulCallsWithoutRetry()).isEqualTo(1);
	}

	@Test
	void anAttemptReturnsAfterItsCodeRanEvenWhenItThrowsAnError() {
		assertThatThrownBy(() -> template().maxAttempts(1).build().execute(context -> {
			this.calls.add("attempt");
			throw new AssertionError("boom");
		})).isInstanceOf(AssertionError.class);
		assertThat(this.calls).containsExactly("open", "before1@0", "attempt", "returned", "error", "close");
	}

	@Test
	void anAsyncAttemptReturnsOnItsThreadOnceItsSupplierReturnedWhileItsStageStillRuns() {
		AtomicInteger runs = new AtomicInteger();
		CompletableFuture<String> second = new CompletableFuture<>();
		CompletableFuture<String> result = template().build().executeAsync(() -> {
			this.calls.add("started");
			return (runs.incrementAndGet() < 2) ? CompletableFuture.failedFuture(new IOException("down")) : second;
		});
		this.time.advance(Duration.ofMillis(100));
		assertThat(this.calls).containsExactly("open", "before1@0", "started", "returned", "error", "before2@100",
				"started", "returned");
		second.complete("ok");
		assertThat(result).isCompletedWithValue("ok");
		assertThat(this.calls).endsWith("returned", "success", "close");
		assertThat(this.threads).hasSize(4);
		assertThat(this.threads.get(2)).isSameAs(this.threads.get(3));
	}

	@Test
	void anAsyncSupplierThatThrowsReturnsBeforeItsFailureIsReported() {
		CompletableFuture<String> result = template().maxAttempts(1).build().executeAsync(() -> {
			throw new IllegalStateException("no connection");
		});
		assertThat(result).isCompletedExceptionally();
		assertThat(this.calls).containsExactly("open", "before1@0", "returned", "error", "close");
	}

	@Test
	void anAsyncAttemptCancelledBetweenItsStartAndItsRunStillReturns() {
		AtomicInteger runs = new AtomicInteger();
		CompletableFuture<?>[] call = new CompletableFuture<?>[1];
		RetryTemplate template = template().listener(new RetryListener() {
			@Override
			public void beforeAttempt(RetryContext context) {
				if (context.getRetryCount() == 1) {
					call[0].cancel(false);
				}
			}
		}).build();
		call[0] = template.executeAsync(() -> {
			runs.incrementAndGet();
			return CompletableFuture.failedFuture(new IOException("down"));
		});
		this.time.advance(Duration.ofMillis(100));
		assertThat(call[0]).isCancelled();
		assertThat(runs).hasValue(1);
		// cancel() closes the call at once, from within beforeAttempt; the attempt that did not run then returns.
		assertThat(this.calls).containsExactly("open", "before1@0", "returned", "error", "before2@100", "close",
				"returned");
	}

	@Test
	void listenersReturnInReverseOrderAndAThrowingOneIsContained() throws Exception {
		RetryTemplate template = template().listener(new RetryListener() {
			@Override
			public void attemptReturned(RetryContext context) {
				AttemptListenerTests.this.calls.add("inner returned");
				throw new IllegalStateException("listener broke");
			}
		}).build();
		String result = template.execute(context -> "ok");
		assertThat(result).isEqualTo("ok");
		assertThat(this.calls).containsExactly("open", "before1@0", "inner returned", "returned", "success", "close");
		assertThat(template.getMetrics().getListenerFailures()).isEqualTo(1);
	}

}
