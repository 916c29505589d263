package dev.retrykit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.failback.FailbackExecutor;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link RetryListener#attemptReturned}: after every {@code beforeAttempt}, on the same thread, as soon as
 * the attempt's code has returned to the engine (before its outcome is reported), in every engine; also
 * when an attempt that was told it starts does not run after all.
 */
class AttemptReturnedListenerTests {

	private final VirtualTime time = new VirtualTime();

	private final List<String> calls = new CopyOnWriteArrayList<>();

	/** The threads of each beforeAttempt and attemptReturned, in order. */
	private final List<Thread> threads = new CopyOnWriteArrayList<>();

	private final RetryListener recording = new RetryListener() {
		@Override
		public void beforeAttempt(RetryContext context) {
			AttemptReturnedListenerTests.this.calls.add("before" + (context.getRetryCount() + 1));
			AttemptReturnedListenerTests.this.threads.add(Thread.currentThread());
		}

		@Override
		public void attemptReturned(RetryContext context) {
			AttemptReturnedListenerTests.this.calls.add("returned");
			AttemptReturnedListenerTests.this.threads.add(Thread.currentThread());
		}

		@Override
		public void onSuccess(RetryContext context, @Nullable Object result) {
			AttemptReturnedListenerTests.this.calls.add("success");
		}

		@Override
		public void onError(RetryContext context, @Nullable Throwable failure) {
			AttemptReturnedListenerTests.this.calls.add("error");
		}

		@Override
		public void close(RetryContext context, @Nullable Throwable failure) {
			AttemptReturnedListenerTests.this.calls.add("close");
		}
	};

	private RetryTemplateBuilder template() {
		return RetryTemplate.builder().virtualTime(this.time).backoff(BackoffPolicy.fixed(Duration.ofMillis(100)))
			.listener(this.recording);
	}

	@Test
	void syncAttemptsReturnBeforeTheirOutcomeIsReported() throws Exception {
		AtomicInteger runs = new AtomicInteger();
		String result = template().build().execute(context -> {
			AttemptReturnedListenerTests.this.calls.add("attempt");
			if (runs.incrementAndGet() < 2) {
				throw new IOException("down");
			}
			return "ok";
		});
		assertThat(result).isEqualTo("ok");
		assertThat(this.calls).containsExactly("before1", "attempt", "returned", "error", "before2", "attempt",
				"returned", "success", "close");
		assertThat(this.threads).containsOnly(Thread.currentThread());
	}

	@Test
	void anAttemptThatThrowsAnErrorStillReturns() {
		assertThatThrownBy(() -> template().maxAttempts(1).build().execute(context -> {
			throw new AssertionError("boom");
		})).isInstanceOf(AssertionError.class);
		assertThat(this.calls).containsExactly("before1", "returned", "error", "close");
	}

	@Test
	void aStatefulAttemptReturnsBeforeItsOutcome() {
		RetryTemplate template = template().build();
		assertThatThrownBy(() -> template.execute(context -> {
			throw new IOException("down");
		}, RetryState.of("message-1"))).isInstanceOf(IOException.class);
		assertThat(this.calls).containsExactly("before1", "returned", "error", "close");
	}

	@Test
	void anAsyncAttemptReturnsOnTheThreadThatStartedIt() {
		AtomicInteger runs = new AtomicInteger();
		CompletableFuture<String> second = new CompletableFuture<>();
		CompletableFuture<String> result = template().build().executeAsync(() -> {
			AttemptReturnedListenerTests.this.calls.add("started");
			return (runs.incrementAndGet() < 2) ? CompletableFuture.failedFuture(new IOException("down")) : second;
		});
		this.time.advance(Duration.ofMillis(100));
		// The second attempt's supplier returned a stage still running: its code returned all the same.
		assertThat(this.calls).containsExactly("before1", "started", "returned", "error", "before2", "started",
				"returned");
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
		assertThat(this.calls).containsExactly("before1", "returned", "error", "close");
	}

	@Test
	void anAsyncAttemptCancelledBetweenItsStartAndItsRunStillReturns() {
		AtomicInteger runs = new AtomicInteger();
		CompletableFuture<?>[] call = new CompletableFuture<?>[1];
		RetryTemplate template = RetryTemplate.builder().virtualTime(this.time)
			.backoff(BackoffPolicy.fixed(Duration.ofMillis(100))).listener(this.recording).listener(new RetryListener() {
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
		assertThat(this.calls).containsExactly("before1", "returned", "error", "before2", "close", "returned");
	}

	@Test
	void aFailbackTaskReturnsOnEveryAttempt() {
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
		assertThat(this.calls).containsExactly("before1", "returned", "error", "before2", "returned", "success",
				"close");
	}

	@Test
	void listenersReturnInReverseOrderAndAThrowingOneIsContained() throws Exception {
		RetryTemplate template = RetryTemplate.builder().virtualTime(this.time).listener(this.recording)
			.listener(new RetryListener() {
				@Override
				public void attemptReturned(RetryContext context) {
					AttemptReturnedListenerTests.this.calls.add("inner returned");
					throw new IllegalStateException("listener broke");
				}
			}).build();
		String result = template.execute(context -> "ok");
		assertThat(result).isEqualTo("ok");
		assertThat(this.calls).containsExactly("before1", "inner returned", "returned", "success", "close");
		assertThat(template.getMetrics().getListenerFailures()).isEqualTo(1);
	}

}
