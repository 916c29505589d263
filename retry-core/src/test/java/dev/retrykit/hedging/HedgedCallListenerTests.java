package dev.retrykit.hedging;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;

import dev.retrykit.RetryConfig;
import dev.retrykit.context.RetryContext;
import dev.retrykit.RetryListener;
import dev.retrykit.RetryTemplate;
import dev.retrykit.VirtualTime;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What listeners are told about the copies of a hedged call: each callback about one copy carries a
 * context whose retry count is the copy's number less one and whose attribute {@code retry.hedged}
 * says whether it is a hedge, so that a listener can tell the copies in flight apart; the call's own
 * attributes are shared.
 */
class HedgedCallListenerTests {

	private final VirtualTime time = new VirtualTime();

	private final Downstream downstream = new Downstream();

	private final List<String> told = new ArrayList<>();

	private RetryTemplate template(int copies) {
		RetryConfig config = RetryConfig.builder().maxAttempts(copies)
			.hedging(HedgingConfig.builder().delay(Duration.ofMillis(10)).build()).build();
		return RetryTemplate.builder().name("search").virtualTime(this.time).config(config)
			.listener(new Recorder()).build();
	}

	@Test
	void eachCallbackAboutACopyTellsWhichCopyItIsAbout() {
		RetryTemplate template = template(3);
		CompletableFuture<String> call = template.executeAsync(this.downstream);
		this.time.advance(Duration.ofMillis(10));
		this.downstream.copy(2).completeExceptionally(new IOException("second down"));
		assertThat(this.downstream.calls()).isEqualTo(3);

		this.downstream.copy(1).complete("first");

		assertThat(call).isCompletedWithValue("first");
		assertThat(this.told).containsExactly("open", "beforeAttempt 1 null", "attemptReturned 1 null",
				"beforeAttempt 2 true", "attemptReturned 2 true", "onError 2 true", "onRetry 2 true",
				"beforeAttempt 3 true", "attemptReturned 3 true", "onSuccess 1 false", "close");
	}

	@Test
	void theCallsAttributesAreSeenAndSetThroughEveryCopysContext() {
		RetryTemplate template = template(2);
		CompletableFuture<String> call = template.executeAsync(this.downstream);
		this.time.advance(Duration.ofMillis(10));

		this.downstream.copy(2).complete("second");

		assertThat(call).isCompletedWithValue("second");
		// Set in open on the call's context, read and extended in the second copy's callbacks.
		assertThat(this.told).contains("beforeAttempt 2 true").endsWith("onSuccess 2 true", "seen open+2", "close");
	}

	@Test
	void aCopysContextAnswersEverythingElseAsTheCallsOwn() {
		List<String> seen = new ArrayList<>();
		RetryListener copyViews = new RetryListener() {
			@Override
			public void onError(RetryContext context, @Nullable Throwable failure) {
				context.setAttribute("retry.hedged", Boolean.FALSE);
				seen.add(context.getName() + ", retries " + context.getRetryCount() + ", hedged "
						+ context.getAttribute("retry.hedged") + " " + context.hasAttribute("retry.hedged") + ", last "
						+ context.getLastThrowable().getMessage() + ", names " + new TreeSet<>(context.attributeNames()) + ", parent "
						+ context.getParent() + ", outcome " + context.getOutcome() + ", exhausted " + context.isExhaustedOnly());
				context.setExhaustedOnly();
			}

			@Override
			public void close(RetryContext context, @Nullable Throwable failure) {
				seen.add("closed, hedged " + context.getAttribute("retry.hedged") + ", exhausted "
						+ context.isExhaustedOnly() + ", outcome " + context.getOutcome());
			}
		};
		RetryConfig config = RetryConfig.builder().maxAttempts(2)
			.hedging(HedgingConfig.builder().delay(Duration.ofMillis(10)).build()).build();
		RetryTemplate template = RetryTemplate.builder().name("search").virtualTime(this.time).config(config)
			.listener(new Recorder()).listener(copyViews).build();
		CompletableFuture<String> call = template.executeAsync(this.downstream);
		this.time.advance(Duration.ofMillis(10));

		this.downstream.copy(2).completeExceptionally(new IOException("second down"));
		this.downstream.copy(1).complete("first");

		// The hedged attribute is the engine's: set through a copy's view, it changes nowhere; exhausted-only is the call's.
		assertThat(call).isCompletedWithValue("first");
		assertThat(seen).containsExactly(
				"search, retries 1, hedged true true, last second down, names [retry.hedged, seen], parent null, outcome null, exhausted false",
				"closed, hedged null, exhausted true, outcome SUCCESSFUL_WITH_RETRY");
	}

	@Test
	void aListenerThatSetsExhaustedOnlyInOnErrorStopsFurtherCopiesAsItStopsARetry() {
		RetryTemplate template = stoppedByItsListener();
		CompletableFuture<String> call = template.executeAsync(this.downstream);

		// A failure would start the next copy at once; exhausted-only, set as the failure is told, starts none.
		this.downstream.copy(1).completeExceptionally(new IOException("first down"));
		this.time.advance(Duration.ofMillis(100));

		assertThat(this.downstream.calls()).isEqualTo(1);
		assertThat(call).isCompletedExceptionally();
		assertThat(template.getMetrics().getHedgesStarted()).isZero();
	}

	@Test
	void exhaustedOnlySetWhileACopyIsInFlightStopsTheHedgesStillToCome() {
		RetryTemplate template = stoppedByItsListener();
		CompletableFuture<String> call = template.executeAsync(this.downstream);
		this.time.advance(Duration.ofMillis(10));
		assertThat(this.downstream.calls()).isEqualTo(2);

		this.downstream.copy(2).completeExceptionally(new IOException("second down"));
		this.time.advance(Duration.ofMillis(100));
		assertThat(this.downstream.calls()).as("no third copy, neither at once nor by the delay").isEqualTo(2);

		this.downstream.copy(1).complete("first");
		assertThat(call).isCompletedWithValue("first");
	}

	/** An instance of 3 copies whose one listener sets exhausted-only as each failure is told. */
	private RetryTemplate stoppedByItsListener() {
		RetryListener stopper = new RetryListener() {
			@Override
			public void onError(RetryContext context, @Nullable Throwable failure) {
				context.setExhaustedOnly();
			}
		};
		RetryConfig config = RetryConfig.builder().maxAttempts(3)
			.hedging(HedgingConfig.builder().delay(Duration.ofMillis(10)).build()).build();
		return RetryTemplate.builder().name("search").virtualTime(this.time).config(config).listener(stopper).build();
	}

	/** Records each callback with the copy it is about (retry count + 1) and its {@code retry.hedged}. */
	private final class Recorder implements RetryListener {

		@Override
		public boolean open(RetryContext context) {
			context.setAttribute("seen", "open");
			HedgedCallListenerTests.this.told.add("open");
			return true;
		}

		@Override
		public void beforeAttempt(RetryContext context) {
			record("beforeAttempt", context);
		}

		@Override
		public void attemptReturned(RetryContext context) {
			record("attemptReturned", context);
		}

		@Override
		public void onSuccess(RetryContext context, @Nullable Object result) {
			record("onSuccess", context);
			if (context.getRetryCount() == 1) {
				context.setAttribute("seen", context.getAttribute("seen") + "+2");
			}
		}

		@Override
		public void onError(RetryContext context, @Nullable Throwable failure) {
			record("onError", context);
		}

		@Override
		public void onRetry(RetryContext context, Duration delay) {
			record("onRetry", context);
		}

		@Override
		public void close(RetryContext context, @Nullable Throwable failure) {
			if (context.getAttribute("seen") instanceof String seen && seen.contains("+")) {
				HedgedCallListenerTests.this.told.add("seen " + seen);
			}
			HedgedCallListenerTests.this.told.add("close");
		}

		private void record(String callback, RetryContext context) {
			HedgedCallListenerTests.this.told.add(callback + " " + (context.getRetryCount() + 1) + " "
					+ context.getAttribute("retry.hedged"));
		}

	}

}
