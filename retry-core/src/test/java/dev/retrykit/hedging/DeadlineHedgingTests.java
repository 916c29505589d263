package dev.retrykit.hedging;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeoutException;

import dev.retrykit.Deadline;
import dev.retrykit.DeadlineExceededException;
import dev.retrykit.RetryTemplate;
import dev.retrykit.VirtualTime;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A {@link Deadline} over hedged calls, in virtual time: no copy starts after it, the copies in flight
 * time out at it, and each copy, also one the timer starts, runs under it.
 */
class DeadlineHedgingTests {

	private final VirtualTime time = new VirtualTime();

	private final Downstream downstream = new Downstream();

	private final List<@Nullable Deadline> seen = new ArrayList<>();

	private RetryTemplate template() {
		return RetryTemplate.builder().name("search").virtualTime(this.time).maxAttempts(5)
			.hedging(HedgingConfig.builder().delay(Duration.ofMillis(100)).build()).build();
	}

	private CompletionStage<String> copy() {
		this.seen.add(Deadline.current());
		return this.downstream.get();
	}

	@Test
	void noCopyStartsAfterTheDeadlineAndTheCopiesInFlightTimeOutAtIt() {
		RetryTemplate template = template();
		CompletableFuture<String> call;
		try (Deadline.Scope scope = Deadline.after(Duration.ofMillis(250), this.time).enter()) {
			call = template.executeAsync(this::copy);
		}
		this.time.advance(Duration.ofMillis(249));
		assertThat(this.downstream.calls()).isEqualTo(3);
		assertThat(call).isNotDone();
		this.time.advance(Duration.ofSeconds(1));
		assertThat(this.downstream.calls()).isEqualTo(3);
		assertThatThrownBy(call::join).hasCauseInstanceOf(TimeoutException.class).cause()
			.hasMessageContaining("deadline");
		assertThat(this.downstream.copies).allSatisfy(copy -> assertThat(copy.cancels).isEqualTo(1));
		assertThat(template.getMetrics().getDeadlineRejections()).isEqualTo(1);
		assertThat(this.time.pendingTasks()).isZero();
	}

	@Test
	void everyCopyRunsUnderTheCallsDeadline() {
		RetryTemplate template = template();
		Deadline deadline = Deadline.after(Duration.ofSeconds(10), this.time);
		CompletableFuture<String> call;
		try (Deadline.Scope scope = deadline.enter()) {
			call = template.executeAsync(this::copy);
		}
		this.time.advance(Duration.ofMillis(200));
		assertThat(this.seen).hasSize(3).containsOnly(deadline);
		this.downstream.copy(3).complete("third");
		assertThat(call).isCompleted();
		assertThat(call.join()).isEqualTo("third");
		assertThat(Deadline.current()).isNull();
	}

	@Test
	void aBlockingCallsCopiesRunUnderItsDeadlineOnTheExecutorsThreads() {
		ExecutorService executor = Executors.newCachedThreadPool();
		try {
			RetryTemplate template = RetryTemplate.builder().name("search").virtualTime(this.time).maxAttempts(3)
				.hedging(HedgingConfig.builder().delay(Duration.ofMillis(100)).executor(executor).build()).build();
			Deadline deadline = Deadline.after(Duration.ofSeconds(10), this.time);
			Thread caller = Thread.currentThread();
			String answer;
			try (Deadline.Scope scope = deadline.enter()) {
				answer = template.execute(context -> (Thread.currentThread() != caller) + " " + (Deadline.current() == deadline));
			}
			assertThat(answer).isEqualTo("true true");
		}
		finally {
			executor.shutdownNow();
		}
	}

	@Test
	void aDeadlinePassedBeforeTheCallStartsNoCopy() {
		RetryTemplate template = template();
		CompletableFuture<String> call;
		try (Deadline.Scope scope = Deadline.after(Duration.ZERO, this.time).enter()) {
			call = template.executeAsync(this::copy);
		}
		assertThat(call).isCompletedExceptionally();
		assertThatThrownBy(call::join).hasCauseInstanceOf(DeadlineExceededException.class);
		assertThat(this.downstream.calls()).isZero();
	}

	@Test
	void withoutADeadlineCopiesStartAsTheyAlwaysDid() {
		RetryTemplate template = template();
		CompletableFuture<String> call = template.executeAsync(this::copy);
		this.time.advance(Duration.ofMillis(400));
		assertThat(this.downstream.calls()).isEqualTo(5);
		assertThat(this.seen).containsOnlyNulls();
		this.downstream.copy(5).complete("fifth");
		assertThat(call).isCompleted();
		assertThat(call.join()).isEqualTo("fifth");
	}

}
