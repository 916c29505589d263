package dev.retrykit.scheduler;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import dev.retrykit.RetryTemplate;
import dev.retrykit.VirtualTime;
import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.spi.AbandonableTask;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Async calls when their scheduler stops, and when they are cancelled while an attempt starts: every
 * future completes, and no attempt outlives its call.
 */
class AsyncSchedulerStopTests {

	private final FakeTimeSource clock = new FakeTimeSource();

	private final IOException down = new IOException("down");

	private TimingWheelScheduler manualWheel() {
		return TimingWheelScheduler.builder().manual().tick(Duration.ofMillis(10)).wheelSize(8)
			.timeSource(this.clock).executor(Runnable::run).build();
	}

	/** A manual wheel whose executor refuses every task, as a saturated pool does. */
	private TimingWheelSchedulerBuilder refusingWheel() {
		return TimingWheelScheduler.builder().manual().tick(Duration.ofMillis(10)).wheelSize(8)
			.timeSource(this.clock).executor(task -> {
				throw new RejectedExecutionException("pool saturated");
			});
	}

	private RetryTemplate template(TimingWheelScheduler wheel) {
		return RetryTemplate.builder().timeSource(this.clock).scheduler(wheel).maxAttempts(3)
			.backoff(BackoffPolicy.fixed(Duration.ofSeconds(1))).build();
	}

	@Test
	void aRetryPendingWhenTheSchedulerStopsCompletesTheCallWithTheLastFailure() {
		TimingWheelScheduler wheel = manualWheel();
		RetryTemplate template = template(wheel);
		CompletableFuture<String> call = template.executeAsync(() -> CompletableFuture.failedFuture(this.down));
		assertThat(call).isNotDone();

		wheel.stop();

		assertThat(call).isCompletedExceptionally();
		assertThatThrownBy(call::join).cause().isInstanceOf(RejectedExecutionException.class)
			.hasMessageContaining("stopped").hasCause(this.down);
		assertThat(template.getMetrics().getFailedCallsWithoutRetry()).isEqualTo(1);
	}

	@Test
	void aRetryThatCannotBeScheduledCompletesTheCallWithTheLastFailure() {
		TimingWheelScheduler wheel = manualWheel();
		RetryTemplate template = template(wheel);
		wheel.stop();

		CompletableFuture<String> call = template.executeAsync(() -> CompletableFuture.failedFuture(this.down));

		assertThat(call).isCompletedExceptionally();
		assertThatThrownBy(call::join).cause().isInstanceOf(RejectedExecutionException.class)
			.hasMessageContaining("stopped").hasCause(this.down);
	}

	@Test
	void anAttemptWhoseTimeoutIsPendingWhenTheSchedulerStopsEndsTheCallAndIsCancelled() {
		TimingWheelScheduler wheel = manualWheel();
		RetryTemplate template = RetryTemplate.builder().timeSource(this.clock).scheduler(wheel).maxAttempts(3)
			.attemptTimeout(Duration.ofSeconds(5)).build();
		CompletableFuture<String> hanging = new CompletableFuture<>();
		CompletableFuture<String> call = template.executeAsync(() -> hanging);
		assertThat(call).isNotDone();

		wheel.stop();

		assertThat(call).isCompletedExceptionally();
		assertThatThrownBy(call::join).cause().isInstanceOf(RejectedExecutionException.class)
			.hasMessageContaining("could not time out attempt 1").hasMessageContaining("stopped");
		assertThat(hanging).isCancelled();
		assertThat(template.getMetrics().getFailedCallsWithoutRetry()).isEqualTo(1);
		// The attempt's late outcome changes nothing.
		hanging.complete("late");
		assertThat(call).isCompletedExceptionally();
	}

	@Test
	void anAttemptWhoseTimeoutIsPendingWhenTheSchedulerStopsKeepsTheLastFailureAsCause() {
		TimingWheelScheduler wheel = manualWheel();
		RetryTemplate template = RetryTemplate.builder().timeSource(this.clock).scheduler(wheel).maxAttempts(3)
			.backoff(BackoffPolicy.none()).attemptTimeout(Duration.ofSeconds(5)).build();
		AtomicInteger attempts = new AtomicInteger();
		CompletableFuture<String> hanging = new CompletableFuture<>();
		CompletableFuture<String> call = template.executeAsync(
				() -> (attempts.incrementAndGet() == 1) ? CompletableFuture.failedFuture(this.down) : hanging);
		assertThat(attempts).hasValue(2);

		wheel.stop();

		assertThatThrownBy(call::join).cause().isInstanceOf(RejectedExecutionException.class)
			.hasMessageContaining("could not time out attempt 2").hasCause(this.down);
		assertThat(hanging).isCancelled();
	}

	@Test
	void anAttemptWhoseTimeoutCannotBeScheduledEndsTheCallAndIsCancelled() {
		TimingWheelScheduler wheel = manualWheel();
		RetryTemplate template = RetryTemplate.builder().timeSource(this.clock).scheduler(wheel).maxAttempts(3)
			.attemptTimeout(Duration.ofSeconds(5)).build();
		wheel.stop();
		CompletableFuture<String> hanging = new CompletableFuture<>();

		CompletableFuture<String> call = template.executeAsync(() -> hanging);

		assertThat(call).isCompletedExceptionally();
		assertThatThrownBy(call::join).cause().isInstanceOf(RejectedExecutionException.class)
			.hasMessageContaining("stopped");
		assertThat(hanging).isCancelled();
	}

	@Test
	void aRetryTheExecutorRefusesEndsTheCallWithTheRefusalAndTheLastFailure() {
		TimingWheelScheduler wheel = refusingWheel().build();
		RetryTemplate template = template(wheel);
		CompletableFuture<String> call = template.executeAsync(() -> CompletableFuture.failedFuture(this.down));

		this.clock.advance(Duration.ofSeconds(2));
		wheel.runDueTasks();

		assertThat(wheel.rejectedCount()).isEqualTo(1);
		assertThat(call).isCompletedExceptionally();
		assertThatThrownBy(call::join).cause().isInstanceOf(RejectedExecutionException.class)
			.hasMessageContaining("could not wait for attempt 2").hasMessageContaining("pool saturated")
			.hasCause(this.down);
	}

	@Test
	void anAttemptTimeoutTheExecutorRefusesEndsTheCallAndCancelsTheAttempt() {
		TimingWheelScheduler wheel = refusingWheel().build();
		RetryTemplate template = RetryTemplate.builder().timeSource(this.clock).scheduler(wheel).maxAttempts(3)
			.attemptTimeout(Duration.ofSeconds(1)).build();
		CompletableFuture<String> hanging = new CompletableFuture<>();
		CompletableFuture<String> call = template.executeAsync(() -> hanging);

		this.clock.advance(Duration.ofSeconds(2));
		wheel.runDueTasks();

		assertThat(call).isCompletedExceptionally();
		assertThatThrownBy(call::join).cause().isInstanceOf(RejectedExecutionException.class)
			.hasMessageContaining("could not time out attempt 1").hasMessageContaining("pool saturated");
		assertThat(hanging).isCancelled();
	}

	@Test
	void theLogOnlyHandlerLeavesARefusedTaskToTheCaller() {
		List<Runnable> refused = new ArrayList<>();
		TimingWheelScheduler wheel = refusingWheel().rejectionHandler((task, cause) -> {
			RejectedTaskHandler.LOG.rejected(task, cause);
			refused.add(task);
		}).build();
		RetryTemplate template = template(wheel);
		CompletableFuture<String> call = template.executeAsync(() -> CompletableFuture.failedFuture(this.down));

		this.clock.advance(Duration.ofSeconds(2));
		wheel.runDueTasks();

		assertThat(refused).hasSize(1);
		assertThat(call).isNotDone();
		AbandonableTask.abandonIfAbandonable(refused.get(0), new RejectedExecutionException("given up"));
		assertThat(call).isCompletedExceptionally();
		assertThatThrownBy(call::join).cause().hasMessageContaining("given up").hasCause(this.down);
	}

	@Test
	void aRetryPendingOnStoppedVirtualTimeCompletesTheCall() {
		VirtualTime time = new VirtualTime();
		RetryTemplate template = RetryTemplate.builder().virtualTime(time).maxAttempts(3).build();
		CompletableFuture<String> call = template.executeAsync(() -> CompletableFuture.failedFuture(this.down));
		time.stop();
		assertThat(call).isCompletedExceptionally();
		assertThatThrownBy(call::join).cause().isInstanceOf(RejectedExecutionException.class).hasCause(this.down);
	}

	@Test
	void anAttemptStartingWhileTheCallIsCancelledHasItsStageCancelled() {
		VirtualTime time = new VirtualTime();
		RetryTemplate template = RetryTemplate.builder().virtualTime(time).maxAttempts(3).build();
		AtomicInteger attempts = new AtomicInteger();
		AtomicReference<CompletableFuture<String>> call = new AtomicReference<>();
		CompletableFuture<String> second = new CompletableFuture<>();
		call.set(template.executeAsync(() -> {
			if (attempts.incrementAndGet() == 1) {
				return CompletableFuture.failedFuture(this.down);
			}
			// cancel() runs while this attempt starts: after the call looked at it, before it is in flight
			call.get().cancel(true);
			return second;
		}));
		time.advance(Duration.ofSeconds(1));
		assertThat(attempts).hasValue(2);
		assertThat(call.get()).isCancelled();
		assertThat(second).isCancelled();
	}

	@Test
	void noAttemptStartsAfterCancelReturned() {
		VirtualTime time = new VirtualTime();
		RetryTemplate template = RetryTemplate.builder().virtualTime(time).maxAttempts(3).build();
		AtomicInteger attempts = new AtomicInteger();
		CompletableFuture<String> call = template.executeAsync(() -> {
			attempts.incrementAndGet();
			return CompletableFuture.failedFuture(this.down);
		});
		assertThat(call.cancel(true)).isTrue();
		time.advance(Duration.ofMinutes(1));
		assertThat(attempts).hasValue(1);
		assertThatThrownBy(call::join).isInstanceOf(CancellationException.class);
	}

}
