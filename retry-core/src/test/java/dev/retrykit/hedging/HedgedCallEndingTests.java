package dev.retrykit.hedging;

import java.io.IOException;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.retrykit.RetryConfig;
import dev.retrykit.context.RetryContext;
import dev.retrykit.RetryListener;
import dev.retrykit.RetryRegistry;
import dev.retrykit.RetryTemplate;
import dev.retrykit.VirtualTime;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * How a hedged call ends, in virtual time: a caller's future completed from outside stops the call,
 * every copy failing ends it with the others' failures suppressed, an ended call leaves nothing behind
 * on the timer's list, and a live change reaches the calls in flight.
 */
class HedgedCallEndingTests {

	private final VirtualTime time = new VirtualTime();

	private final Downstream downstream = new Downstream();

	private final List<String> closes = new ArrayList<>();

	private RetryTemplate template(int copies, long delayMillis) {
		return RetryTemplate.builder().name("search").virtualTime(this.time).maxAttempts(copies)
			.hedging(HedgingConfig.builder().delay(Duration.ofMillis(delayMillis)).build())
			.listener(new RetryListener() {
				@Override
				public void close(RetryContext context, @Nullable Throwable failure) {
					HedgedCallEndingTests.this.closes.add(String.valueOf(failure));
				}
			})
			.build();
	}

	@Test
	void aFutureCompletedByTheCallerStartsNoFurtherCopyAndCancelsThoseInFlight() {
		RetryTemplate template = template(3, 10);
		CompletableFuture<String> call = template.executeAsync(this.downstream);
		this.time.advance(Duration.ofMillis(15));
		assertThat(this.downstream.calls()).isEqualTo(2);

		assertThat(call.complete("fallback")).isTrue();
		this.time.advance(Duration.ofMillis(100));

		assertThat(call).isCompletedWithValue("fallback");
		assertThat(this.downstream.calls()).isEqualTo(2);
		assertThat(this.downstream.copy(1).cancels).isEqualTo(1);
		assertThat(this.downstream.copy(2).cancels).isEqualTo(1);
		assertThat(template.getMetrics().getHedgesCancelled()).isEqualTo(1);
		assertThat(this.closes).containsExactly("null");
		this.downstream.copy(2).complete("too late");
		assertThat(this.closes).hasSize(1);
	}

	@Test
	void aCallersOrTimeoutStopsTheHedges() {
		RetryTemplate template = template(3, 10);
		CompletableFuture<String> call = template.executeAsync(this.downstream).orTimeout(1, TimeUnit.MILLISECONDS);

		assertThatThrownBy(call::join).hasCauseInstanceOf(TimeoutException.class);
		this.time.advance(Duration.ofMillis(100));

		assertThat(this.downstream.calls()).isEqualTo(1);
		assertThat(this.downstream.copy(1).cancels).isEqualTo(1);
		assertThat(this.closes).singleElement().asString().startsWith("java.util.concurrent.TimeoutException");
	}

	@Test
	void aCallCompletedExceptionallyFromOutsideCountsItsHedgesInFlightAsCancelled() {
		RetryTemplate template = template(3, 10);
		CompletableFuture<String> call = template.executeAsync(this.downstream);
		this.time.advance(Duration.ofMillis(25));

		call.completeExceptionally(new TimeoutException("the caller's own"));
		this.time.advance(Duration.ofMillis(100));

		assertThat(this.downstream.calls()).isEqualTo(3);
		assertThat(template.getMetrics().getHedgesCancelled()).isEqualTo(2);
		assertThat(template.getMetrics().getHedgesStarted()).isEqualTo(2);
	}

	@Test
	void whenEveryCopyFailsTheLastFailureEndsTheCallWithTheOthersSuppressed() {
		RetryTemplate template = template(3, 10);
		CompletableFuture<String> call = template.executeAsync(this.downstream);
		this.time.advance(Duration.ofMillis(25));
		IOException first = new IOException("first");
		IOException second = new IOException("second");
		IOException third = new IOException("third");

		this.downstream.copy(2).completeExceptionally(second);
		this.downstream.copy(1).completeExceptionally(first);
		this.downstream.copy(3).completeExceptionally(third);

		assertThatThrownBy(call::join).cause().isSameAs(third);
		assertThat(third.getSuppressed()).containsExactly(second, first);
	}

	@Test
	void anEndedCallIsNotKeptByTheTimerUntilItsNextPass() {
		RetryTemplate template = template(3, 1000);
		List<CompletableFuture<Object>> answers = new ArrayList<>();
		CompletableFuture<Object> call = template.executeAsync(() -> {
			CompletableFuture<Object> answer = new CompletableFuture<>();
			answers.add(answer);
			return answer;
		});
		Object result = new byte[1 << 20];
		WeakReference<Object> kept = new WeakReference<>(result);
		answers.get(0).complete(result);
		assertThat(call).isDone();

		result = null;
		call = null;
		answers.clear();

		for (int i = 0; i < 20 && kept.get() != null; i++) {
			System.gc();
		}
		assertThat(kept.get()).as("the ended call's result, before the timer's next pass").isNull();
		assertThat(this.time.untilNextTask()).isNotNull();
	}

	@Test
	void aLiveSwitchOffReachesTheCallsInFlight() {
		RetryRegistry registry = RetryRegistry.builder().virtualTime(this.time).build();
		RetryConfig hedging = RetryConfig.builder().maxAttempts(3)
			.hedging(HedgingConfig.builder().delay(Duration.ofMillis(10)).build()).build();
		registry.replace("search", hedging);
		CompletableFuture<String> call = registry.template("search").executeAsync(this.downstream);

		registry.replace("search", RetryConfig.builder().maxAttempts(3).build());
		this.time.advance(Duration.ofMillis(100));

		assertThat(this.downstream.calls()).isEqualTo(1);
		this.downstream.copy(1).complete("first");
		assertThat(call).isCompletedWithValue("first");
	}

	@Test
	void switchingHedgingOffAndOnAgainKeepsTheLearntDelay() {
		RetryRegistry registry = RetryRegistry.builder().virtualTime(this.time).build();
		RetryConfig hedging = RetryConfig.builder().maxAttempts(3)
			.hedging(HedgingConfig.builder().adaptive().maxDelay(Duration.ofSeconds(1)).build()).build();
		registry.replace("search", hedging);
		RetryTemplate template = registry.template("search");
		for (int i = 0; i < 150; i++) {
			answerAfter(template, 40);
		}
		assertThat(template.getHedgingDelay()).isEqualTo(Duration.ofMillis(40));

		registry.replace("search", RetryConfig.builder().maxAttempts(3).build());
		registry.replace("search", hedging);

		assertThat(registry.template("search").getHedgingDelay()).isEqualTo(Duration.ofMillis(40));
	}

	/** One call whose copy answers after {@code millis}, waited for. */
	private void answerAfter(RetryTemplate template, long millis) {
		CompletableFuture<String> call = template.executeAsync(() -> answerIn(millis));
		this.time.advance(Duration.ofMillis(millis));
		assertThat(call).isCompletedWithValue("ok");
	}

	private CompletionStage<String> answerIn(long millis) {
		CompletableFuture<String> answer = new CompletableFuture<>();
		this.time.schedule(() -> answer.complete("ok"), millis, TimeUnit.MILLISECONDS);
		return answer;
	}

}
