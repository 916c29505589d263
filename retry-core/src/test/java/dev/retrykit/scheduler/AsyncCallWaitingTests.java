package dev.retrykit.scheduler;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.retrykit.RetryTemplate;
import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.spi.RetryScheduler;
import dev.retrykit.spi.ScheduledTask;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a cancelled async call stops: the pending retry, or the attempt in flight and its timer, also
 * when the scheduler runs a retry before {@code schedule} has returned its handle (the attempt that
 * the retry started is then what the call waits on, not the late handle).
 */
class AsyncCallWaitingTests {

	private final IOException down = new IOException("down");

	@Test
	void cancellingReachesTheAttemptThatARetryStartedBeforeItsHandleWasReturned() {
		InlineScheduler scheduler = new InlineScheduler(1);
		List<CompletableFuture<String>> attempts = new ArrayList<>();
		RetryTemplate template = template(scheduler).build();
		CompletableFuture<String> call = template.executeAsync(() -> {
			if (attempts.isEmpty()) {
				attempts.add(CompletableFuture.failedFuture(this.down));
			}
			else {
				attempts.add(new CompletableFuture<>());
			}
			return attempts.get(attempts.size() - 1);
		});

		assertThat(attempts).hasSize(2);
		assertThat(call.cancel(true)).isTrue();

		assertThat(attempts.get(1)).isCancelled();
	}

	@Test
	void cancellingReachesTheRetryPendingAfterARetryThatRanBeforeItsHandleWasReturned() {
		InlineScheduler scheduler = new InlineScheduler(1);
		AtomicInteger attempts = new AtomicInteger();
		RetryTemplate template = template(scheduler).build();
		CompletableFuture<String> call = template.executeAsync(() -> {
			attempts.incrementAndGet();
			return CompletableFuture.failedFuture(this.down);
		});

		assertThat(attempts).hasValue(2);
		assertThat(scheduler.handles).hasSize(2);
		assertThat(call.cancel(false)).isTrue();

		assertThat(scheduler.handles.get(1).isCancelled()).as("the pending retry").isTrue();
		scheduler.handles.get(1).task.run();
		assertThat(attempts).hasValue(2);
	}

	@Test
	void cancellingAnAttemptWithATimeoutCancelsItsStageAndItsTimer() {
		InlineScheduler scheduler = new InlineScheduler(0);
		CompletableFuture<String> attempt = new CompletableFuture<>();
		RetryTemplate template = template(scheduler).attemptTimeout(Duration.ofSeconds(1)).build();
		CompletableFuture<String> call = template.executeAsync(() -> attempt);

		assertThat(scheduler.handles).singleElement().satisfies(timer -> assertThat(timer.isCancelled()).isFalse());
		assertThat(call.cancel(true)).isTrue();

		assertThat(attempt).isCancelled();
		assertThat(scheduler.handles.get(0).isCancelled()).as("the attempt's timer").isTrue();
	}

	@Test
	void anAttemptWithATimeoutThatCompletesStopsItsTimer() {
		InlineScheduler scheduler = new InlineScheduler(0);
		CompletableFuture<String> attempt = new CompletableFuture<>();
		RetryTemplate template = template(scheduler).attemptTimeout(Duration.ofSeconds(1)).build();
		CompletableFuture<String> call = template.executeAsync(() -> attempt);

		attempt.complete("ok");

		assertThat(call).isCompletedWithValue("ok");
		assertThat(scheduler.handles).singleElement().satisfies(timer -> assertThat(timer.isCancelled()).isTrue());
	}

	private static dev.retrykit.RetryTemplateBuilder template(RetryScheduler scheduler) {
		return RetryTemplate.builder().maxAttempts(5).backoff(BackoffPolicy.fixed(Duration.ofSeconds(1)))
			.scheduler(scheduler);
	}

	/** Runs the first {@code inline} tasks before {@code schedule} returns; keeps the others' handles. */
	private static final class InlineScheduler implements RetryScheduler {

		final List<Handle> handles = new ArrayList<>();

		private int inline;

		InlineScheduler(int inline) {
			this.inline = inline;
		}

		@Override
		public ScheduledTask schedule(Runnable task, long delay, TimeUnit unit) {
			Handle handle = new Handle(task);
			this.handles.add(handle);
			if (this.inline > 0) {
				this.inline--;
				handle.expired = true;
				task.run();
			}
			return handle;
		}

	}

	private static final class Handle implements ScheduledTask {

		final Runnable task;

		boolean cancelled;

		boolean expired;

		Handle(Runnable task) {
			this.task = task;
		}

		@Override
		public boolean cancel() {
			if (this.cancelled || this.expired) {
				return false;
			}
			this.cancelled = true;
			return true;
		}

		@Override
		public boolean isCancelled() {
			return this.cancelled;
		}

		@Override
		public boolean isExpired() {
			return this.expired;
		}

	}

}
