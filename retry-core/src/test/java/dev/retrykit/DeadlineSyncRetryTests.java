package dev.retrykit;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.context.RetryContext;
import dev.retrykit.context.StopReason;
import dev.retrykit.RetryState;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A {@link Deadline} over synchronous calls, in virtual time: no attempt and no backoff that would end
 * after it, the last failure as the call's, a {@code deadline} rejection counted; the earlier of the
 * deadline and {@code max-duration} wins; a deadline that passed before the call runs no attempt; and a
 * call with no deadline retries as it always did.
 */
class DeadlineSyncRetryTests {

	private final VirtualTime time = new VirtualTime();

	private final AtomicInteger attempts = new AtomicInteger();

	private RetryTemplate template(@Nullable Duration maxDuration, RetryListener... listeners) {
		RetryTemplateBuilder builder = RetryTemplate.builder().name("inventory").virtualTime(this.time).maxAttempts(5)
			.backoff(BackoffPolicy.fixed(Duration.ofMillis(100))).maxDuration(maxDuration);
		for (RetryListener listener : listeners) {
			builder.listener(listener);
		}
		return builder.build();
	}

	private String failing(RetryContext context) throws IOException {
		throw new IOException("down " + this.attempts.incrementAndGet());
	}

	private Deadline deadline(long millis) {
		return Deadline.after(Duration.ofMillis(millis), this.time);
	}

	@Test
	void aPlainInstanceStartsNoBackoffThatWouldEndAfterTheDeadline() {
		RetryTemplate template = template(null);
		try (Deadline.Scope scope = deadline(250).enter()) {
			assertThatThrownBy(() -> template.execute(this::failing)).isInstanceOf(IOException.class)
				.hasMessage("down 3");
		}
		assertThat(this.attempts).hasValue(3);
		assertThat(this.time.sleeps()).containsExactly(Duration.ofMillis(100), Duration.ofMillis(100));
		assertThat(template.getMetrics().getDeadlineRejections()).isEqualTo(1);
		assertThat(template.getMetrics().getFailedCallsWithRetry()).isEqualTo(1);
		assertThat(template.getMetrics().getRecentEvents()).extracting(RetryEvent::type)
			.endsWith(RetryEventType.DEADLINE_REJECTION);
	}

	@Test
	void aDeadlineOnAnotherClockCountsWhatIsLeftOnTheEnginesClock() {
		VirtualTime callersClock = new VirtualTime();
		callersClock.advance(Duration.ofDays(3));
		RetryTemplate template = template(null);
		try (Deadline.Scope scope = Deadline.after(Duration.ofMillis(250), callersClock).enter()) {
			assertThatThrownBy(() -> template.execute(this::failing)).hasMessage("down 3");
		}
	}

	@Test
	void aCallWithoutADeadlineRetriesAsItAlwaysDid() {
		RetryTemplate template = template(null);
		assertThatThrownBy(() -> template.execute(this::failing)).hasMessage("down 5");
		assertThat(this.time.sleeps()).hasSize(4);
		assertThat(template.getMetrics().getDeadlineRejections()).isZero();
		assertThat(template.getMetrics().getRecentEvents()).extracting(RetryEvent::type)
			.endsWith(RetryEventType.EXHAUSTED);
	}

	@Test
	void theEarlierOfDeadlineAndMaxDurationWins() {
		RetryTemplate sooner = template(Duration.ofSeconds(10));
		try (Deadline.Scope scope = deadline(150).enter()) {
			assertThatThrownBy(() -> sooner.execute(this::failing)).hasMessage("down 2");
		}
		this.attempts.set(0);
		RetryTemplate later = template(Duration.ofMillis(150));
		try (Deadline.Scope scope = deadline(10_000).enter()) {
			assertThatThrownBy(() -> later.execute(this::failing)).hasMessage("down 2");
		}
		assertThat(sooner.getMetrics().getDeadlineRejections()).isEqualTo(1);
		assertThat(later.getMetrics().getDeadlineRejections()).isEqualTo(1);
	}

	@Test
	void aGuardedCallRecoversWithItsLastFailureAtTheDeadline() throws Exception {
		List<StopReason> reasons = new ArrayList<>();
		RetryTemplate template = template(null, new RetryListener() {
			@Override
			public void close(RetryContext context, @Nullable Throwable failure) {
				reasons.add(context.getStopReason());
			}
		});
		String result;
		try (Deadline.Scope scope = deadline(50).enter()) {
			result = template.execute(this::failing, context -> "fallback after " + context.getLastThrowable().getMessage());
		}
		assertThat(result).isEqualTo("fallback after down 1");
		assertThat(this.attempts).hasValue(1);
		assertThat(this.time.sleeps()).isEmpty();
		assertThat(reasons).containsExactly(StopReason.DEADLINE);
	}

	@Test
	void aDeadlinePassedBeforeTheCallRunsNoAttempt() {
		RetryTemplate template = template(null);
		Deadline deadline = deadline(100);
		this.time.advance(Duration.ofMillis(120));
		try (Deadline.Scope scope = deadline.enter()) {
			assertThatThrownBy(() -> template.execute(this::failing)).isInstanceOf(DeadlineExceededException.class)
				.hasMessageContaining("inventory").hasMessageContaining("20ms ago");
		}
		assertThat(this.attempts).hasValue(0);
		assertThat(template.getMetrics().getAttempts()).isZero();
		assertThat(template.getMetrics().getDeadlineRejections()).isEqualTo(1);
		assertThat(template.getMetrics().getFailedCallsWithoutRetry()).isEqualTo(1);
	}

	@Test
	void theDeadlineOfOneCallDoesNotStayWithTheThreadsPooledContext() {
		RetryTemplate template = template(null);
		try (Deadline.Scope scope = deadline(50).enter()) {
			assertThatThrownBy(() -> template.execute(this::failing)).hasMessage("down 1");
		}
		this.attempts.set(0);
		assertThatThrownBy(() -> template.execute(this::failing)).hasMessage("down 5");
		assertThat(template.getMetrics().getDeadlineRejections()).isEqualTo(1);
	}

	@Test
	void aSuccessfulCallUnderADeadlineLeavesNoDeadlineForTheNextCallOnThisThread() {
		RetryTemplate template = template(null);
		try (Deadline.Scope scope = deadline(50).enter()) {
			String result = template.execute(context -> "ok");
			assertThat(result).isEqualTo("ok");
		}
		assertThatThrownBy(() -> template.execute(this::failing)).hasMessage("down 5");
		assertThat(template.getMetrics().getDeadlineRejections()).isZero();
	}

	@Test
	void aStatefulCallStoppedByItsCallersDeadlineLeavesTheKeyToRetryInItsNextCall() {
		RetryTemplate template = template(null);
		RetryState state = RetryState.of("order-2");
		try (Deadline.Scope scope = deadline(50).enter()) {
			assertThatThrownBy(() -> template.execute(this::failing, state)).hasMessage("down 1");
		}
		assertThat(template.getContextCache().get("order-2").isExhaustedOnly()).isFalse();
		assertThatThrownBy(() -> template.execute(this::failing, state)).hasMessage("down 2");
		assertThat(this.time.sleeps()).containsExactly(Duration.ofMillis(100));
	}

	@Test
	void aStatefulCallStoppedByItsMaxDurationExhaustsTheKey() {
		RetryTemplate template = template(Duration.ofMillis(50));
		RetryState state = RetryState.of("order-3");
		assertThatThrownBy(() -> template.execute(this::failing, state)).hasMessage("down 1");
		assertThat(template.getContextCache().get("order-3").isExhaustedOnly()).isTrue();
		assertThatThrownBy(() -> template.execute(this::failing, state)).isInstanceOf(ExhaustedRetryException.class);
	}

	@Test
	void aStatefulCallUnderAPassedDeadlineLeavesItsCachedStateAlone() {
		RetryTemplate template = template(null);
		RetryState state = RetryState.of("order-1");
		assertThatThrownBy(() -> template.execute(this::failing, state)).hasMessage("down 1");
		Deadline passed = deadline(0);
		try (Deadline.Scope scope = passed.enter()) {
			assertThatThrownBy(() -> template.execute(this::failing, state))
				.isInstanceOf(DeadlineExceededException.class);
		}
		assertThat(this.attempts).hasValue(1);
		assertThat(template.getContextCache().get("order-1").getRetryCount()).isEqualTo(1);
	}

}
