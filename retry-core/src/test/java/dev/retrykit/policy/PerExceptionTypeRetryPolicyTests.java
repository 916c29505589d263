package dev.retrykit.policy;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import dev.retrykit.RetryCallback;
import dev.retrykit.RetryTemplate;
import dev.retrykit.VirtualTime;
import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.context.CallOutcome;
import dev.retrykit.context.RetryContext;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Each exception type's attempts are counted separately, as Spring Retry's ExceptionClassifierRetryPolicy does. */
class PerExceptionTypeRetryPolicyTests {

	private final VirtualTime time = new VirtualTime();

	private final AtomicInteger attempts = new AtomicInteger();

	private final PerExceptionTypeRetryPolicy threeEach = RetryPolicy.byExceptionTypeCountingPerType()
		.on(IOException.class, 3)
		.on(TimeoutException.class, 3)
		.build();

	private RetryTemplate template(RetryPolicy policy) {
		return RetryTemplate.builder().name("inventory").virtualTime(this.time).maxAttempts(-1)
			.backoff(BackoffPolicy.fixed(Duration.ofMillis(10))).policy(policy).build();
	}

	/** Fails with the given failures in turn, then succeeds. */
	private RetryCallback<String, Exception> failingWith(Exception... failures) {
		return context -> {
			int attempt = this.attempts.getAndIncrement();
			if (attempt < failures.length) {
				throw failures[attempt];
			}
			return "ok after " + (attempt + 1);
		};
	}

	@Test
	void twoIoExceptionsThenTwoTimeoutsWithALimitOfThreeEachMakeFiveAttempts() throws Exception {
		RetryCallback<String, Exception> callback = failingWith(new IOException("1"), new IOException("2"),
				new TimeoutException("3"), new TimeoutException("4"));

		assertThat(template(this.threeEach).execute(callback)).isEqualTo("ok after 5");
	}

	@Test
	void aSharedCountWouldStopAtTheThirdAttemptWhichIsWhatByExceptionTypeDoes() {
		RetryPolicy shared = RetryPolicy.byExceptionTypeCountingAllFailures().on(IOException.class, RetryPolicy.maxAttempts(3))
			.on(TimeoutException.class, RetryPolicy.maxAttempts(3)).build();
		RetryCallback<String, Exception> callback = failingWith(new IOException("1"), new IOException("2"),
				new TimeoutException("3"), new TimeoutException("4"));

		assertThatThrownBy(() -> template(shared).execute(callback)).hasMessage("3");
		assertThat(this.attempts).hasValue(3);
	}

	@Test
	void theCallStopsWhenTheCurrentFailuresTypeHasUsedUpItsOwnLimit() {
		RetryCallback<String, Exception> callback = failingWith(new IOException("1"), new TimeoutException("2"),
				new IOException("3"), new TimeoutException("4"), new IOException("5"), new TimeoutException("6"));

		assertThatThrownBy(() -> template(this.threeEach).execute(callback)).isInstanceOf(IOException.class)
			.hasMessage("5");
		assertThat(this.attempts).hasValue(5);
	}

	@Test
	void subclassesCountTowardsTheirClosestMappedType() {
		PerExceptionTypeRetryPolicy policy = RetryPolicy.byExceptionTypeCountingPerType().on(IOException.class, 2)
			.on(FileNotFoundException.class, 2).build();
		// FileNotFoundException has its own entry; an IOException subclass without one counts as IOException.
		RetryCallback<String, Exception> callback = failingWith(new FileNotFoundException("1"), new IOException("2"),
				new java.io.EOFException("3"));

		assertThatThrownBy(() -> template(policy).execute(callback)).hasMessage("3");
		assertThat(this.attempts).hasValue(3);
	}

	@Test
	void failuresOfNoMappedTypeUseTheFallbackWithTheirOwnCount() throws Exception {
		PerExceptionTypeRetryPolicy policy = RetryPolicy.byExceptionTypeCountingPerType().on(IOException.class, 2)
			.otherwise(RetryPolicy.maxAttempts(2)).build();
		RetryCallback<String, Exception> callback = failingWith(new IOException("1"), new IllegalStateException("2"));

		assertThat(template(policy).execute(callback)).isEqualTo("ok after 3");
		this.attempts.set(0);
		RetryCallback<String, Exception> twice = failingWith(new IllegalStateException("1"), new IllegalStateException("2"));
		assertThatThrownBy(() -> template(policy).execute(twice)).hasMessage("2");
	}

	@Test
	void withoutAFallbackAFailureOfNoMappedTypeIsNotRetried() {
		RetryCallback<String, Exception> callback = failingWith(new IllegalStateException("1"));

		assertThatThrownBy(() -> template(this.threeEach).execute(callback)).hasMessage("1");
		assertThat(this.attempts).hasValue(1);
	}

	@Test
	void asyncCallsCountEachTypeSeparatelyToo() {
		List<Exception> failures = List.of(new IOException("1"), new IOException("2"), new TimeoutException("3"),
				new TimeoutException("4"));
		CompletableFuture<String> result = template(this.threeEach).executeAsync(() -> {
			int attempt = this.attempts.getAndIncrement();
			return (attempt < failures.size()) ? CompletableFuture.failedFuture(failures.get(attempt))
					: CompletableFuture.completedFuture("ok after " + (attempt + 1));
		});

		this.time.advance(Duration.ofSeconds(1));

		assertThat(result).isCompletedWithValue("ok after 5");
	}

	@Test
	void theTemplatesMaxAttemptsStillCapsTheCall() {
		RetryTemplate capped = RetryTemplate.builder().virtualTime(this.time).maxAttempts(3)
			.backoff(BackoffPolicy.none()).policy(this.threeEach).build();
		RetryCallback<String, Exception> callback = failingWith(new IOException("1"), new IOException("2"),
				new TimeoutException("3"), new TimeoutException("4"));

		assertThatThrownBy(() -> capped.execute(callback)).hasMessage("3");
	}

	@Test
	void anEntrysPolicySeesTheCallsAttributesAndOutcomeThroughItsView() {
		java.util.concurrent.atomic.AtomicReference<RetryContext> seen = new java.util.concurrent.atomic.AtomicReference<>();
		RetryPolicy recording = context -> {
			seen.set(context);
			return false;
		};
		PerExceptionTypeRetryPolicy policy = RetryPolicy.byExceptionTypeCountingPerType().on(IOException.class, recording).build();
		RetryContext call = new dev.retrykit.testing.SimpleRetryContext("inventory");
		call.setAttribute("tenant", "acme");
		call.setAttribute("lastAttemptAt", 42L);
		((dev.retrykit.testing.SimpleRetryContext) call).fail(new IOException("down"));
		assertThat(policy.canRetry(call)).isFalse();
		RetryContext view = seen.get();
		assertThat(view).isNotSameAs(call);
		assertThat(view.getRetryCount()).isEqualTo(1);
		assertThat(view.attributeNames()).containsAll(call.attributeNames()).contains("tenant", "lastAttemptAt");
		assertThat(view.getAttribute("tenant")).isEqualTo("acme");
		((dev.retrykit.testing.SimpleRetryContext) call).end(CallOutcome.FAILED_WITH_RETRY);
		assertThat(view.getOutcome()).isEqualTo(CallOutcome.FAILED_WITH_RETRY);
	}

	@Test
	void toStringShowsEachTypeItsPolicyAndTheFallback() {
		assertThat(this.threeEach).hasToString("perExceptionType{java.io.IOException=maxAttempts(3), "
				+ "java.util.concurrent.TimeoutException=maxAttempts(3)} otherwise never, each type counted separately");
	}

	@Test
	void badInputIsRefusedWithWhatWasWrong() {
		assertThatNullPointerException().isThrownBy(() -> RetryPolicy.byExceptionTypeCountingPerType().on(null, 3))
			.withMessage("type must not be null");
		assertThatNullPointerException()
			.isThrownBy(() -> RetryPolicy.byExceptionTypeCountingPerType().on(IOException.class, (RetryPolicy) null))
			.withMessage("policy must not be null");
		assertThatNullPointerException().isThrownBy(() -> RetryPolicy.byExceptionTypeCountingPerType().otherwise(null))
			.withMessage("policy must not be null");
		assertThatIllegalArgumentException().isThrownBy(() -> RetryPolicy.byExceptionTypeCountingPerType().on(IOException.class, 0))
			.withMessage("Invalid maxAttempts (0) for java.io.IOException: must be 1 or greater, or -1 for unlimited");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RetryPolicy.byExceptionTypeCountingPerType().on(IOException.class, 3).on(IOException.class, 2))
			.withMessage("java.io.IOException is already mapped (to maxAttempts(3)): each type may be mapped once");
		assertThatIllegalStateException().isThrownBy(() -> RetryPolicy.byExceptionTypeCountingPerType().build())
			.withMessage("No exception type is mapped: add at least one with on(type, policy)");
	}

}
