package dev.retrykit;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import dev.retrykit.backoff.BackoffPolicy;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A {@link Deadline} over async calls, in virtual time: each attempt's timeout shrinks to the time
 * left, no retry is scheduled past it, the attempts that run on the scheduler see it as
 * {@link Deadline#current()}, and a deadline that passed before the call runs no attempt.
 */
class DeadlineAsyncRetryTests {

	private final VirtualTime time = new VirtualTime();

	/** What {@link Deadline#current()} said in each attempt. */
	private final List<@Nullable Deadline> seen = new ArrayList<>();

	private RetryTemplate template(@Nullable Duration attemptTimeout) {
		return RetryTemplate.builder().name("pricing").virtualTime(this.time).maxAttempts(5)
			.backoff(BackoffPolicy.fixed(Duration.ofMillis(100))).attemptTimeout(attemptTimeout).build();
	}

	private Supplier<CompletionStage<String>> failing() {
		return () -> {
			this.seen.add(Deadline.current());
			return CompletableFuture.failedFuture(new IOException("down " + this.seen.size()));
		};
	}

	private Supplier<CompletionStage<String>> neverAnswering() {
		return () -> {
			this.seen.add(Deadline.current());
			return new CompletableFuture<>();
		};
	}

	private Deadline deadline(long millis) {
		return Deadline.after(Duration.ofMillis(millis), this.time);
	}

	@Test
	void anAttemptsTimeoutShrinksToTheTimeLeft() {
		RetryTemplate template = template(Duration.ofSeconds(1));
		CompletableFuture<String> call;
		try (Deadline.Scope scope = deadline(300).enter()) {
			call = template.executeAsync(neverAnswering());
		}
		this.time.advance(Duration.ofMillis(299));
		assertThat(call).isNotDone();
		this.time.advance(Duration.ofMillis(1));
		assertThat(call).isCompletedExceptionally();
		assertThatThrownBy(call::join).hasCauseInstanceOf(TimeoutException.class).cause()
			.hasMessageEndingWith("timed out after 300ms (the call's deadline)");
		assertThat(this.seen).hasSize(1);
		assertThat(template.getMetrics().getDeadlineRejections()).isEqualTo(1);
		this.time.advance(Duration.ofSeconds(5));
		assertThat(this.time.pendingTasks()).isZero();
	}

	@Test
	void aDeadlineWithoutAnAttemptTimeoutStillBoundsAnAttemptThatNeverAnswers() {
		RetryTemplate template = template(null);
		CompletableFuture<String> call;
		try (Deadline.Scope scope = deadline(200).enter()) {
			call = template.executeAsync(neverAnswering());
		}
		this.time.advance(Duration.ofMillis(200));
		assertThat(call).isCompletedExceptionally();
		assertThatThrownBy(call::join).hasCauseInstanceOf(TimeoutException.class);
	}

	@Test
	void noRetryIsScheduledPastTheDeadlineAndTheCallEndsWithItsLastFailure() {
		RetryTemplate template = template(null);
		CompletableFuture<String> call;
		try (Deadline.Scope scope = deadline(250).enter()) {
			call = template.executeAsync(failing());
		}
		this.time.advance(Duration.ofSeconds(1));
		assertThatThrownBy(call::join).hasCauseInstanceOf(IOException.class).cause().hasMessage("down 3");
		assertThat(this.seen).hasSize(3);
		assertThat(template.getMetrics().getDeadlineRejections()).isEqualTo(1);
		assertThat(this.time.pendingTasks()).isZero();
	}

	@Test
	void attemptsOnTheSchedulerRunUnderTheCallsDeadline() {
		RetryTemplate template = template(null);
		Deadline deadline = deadline(1_000);
		CompletableFuture<String> call;
		try (Deadline.Scope scope = deadline.enter()) {
			call = template.executeAsync(failing());
		}
		assertThat(Deadline.current()).isNull();
		this.time.advance(Duration.ofMillis(500));
		assertThat(this.seen).hasSize(5).containsOnly(deadline);
		assertThat(Deadline.current()).isNull();
		assertThatThrownBy(call::join).cause().hasMessage("down 5");
		assertThat(template.getMetrics().getDeadlineRejections()).isZero();
	}

	@Test
	void aDeadlinePassedBeforeTheCallRunsNoAttempt() {
		RetryTemplate template = template(null);
		CompletableFuture<String> call;
		try (Deadline.Scope scope = deadline(0).enter()) {
			call = template.executeAsync(failing());
		}
		assertThat(call).isCompletedExceptionally();
		assertThatThrownBy(call::join).hasCauseInstanceOf(DeadlineExceededException.class);
		assertThat(this.seen).isEmpty();
		assertThat(template.getMetrics().getDeadlineRejections()).isEqualTo(1);
	}

	@Test
	void aCallWithoutADeadlineRetriesAsItAlwaysDid() {
		RetryTemplate template = template(null);
		CompletableFuture<String> call = template.executeAsync(failing());
		this.time.advance(Duration.ofSeconds(1));
		assertThatThrownBy(call::join).cause().hasMessage("down 5");
		assertThat(this.seen).containsOnlyNulls();
		assertThat(template.getMetrics().getDeadlineRejections()).isZero();
	}

}
