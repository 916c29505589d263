package dev.retrykit;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import dev.retrykit.context.RetryContext;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link RetryCallDescriber}: an operation describes its own call to the listeners, on every engine, before
 * they hear of it, and only when there are listeners; and {@link RetryTemplate#withListeners}: listeners
 * chosen per call site, called and contained by the engine as the instance's are.
 */
class RetryCallDescriberTests {

	private final VirtualTime time = new VirtualTime();

	private final List<String> heard = new CopyOnWriteArrayList<>();

	private RetryListener recording(String name) {
		return new RetryListener() {
			@Override
			public boolean open(RetryContext context) {
				record(name + " open", context);
				return true;
			}

			@Override
			public void beforeAttempt(RetryContext context) {
				record(name + " attempt " + (context.getRetryCount() + 1), context);
			}

			@Override
			public void close(RetryContext context, @Nullable Throwable failure) {
				record(name + " close", context);
			}
		};
	}

	private void record(String event, RetryContext context) {
		this.heard.add(event + " of " + context.getAttribute("call"));
	}

	private RetryTemplate template(RetryListener... listeners) {
		return RetryTemplate.builder()
			.name("orders")
			.virtualTime(this.time)
			.listeners(List.of(listeners))
			.build();
	}

	@Test
	void aSynchronousCallIsDescribedBeforeItsListenersHearOfIt() {
		RetryTemplate template = template(recording("a"));
		String result = template.execute(new DescribedCallback("order-1"));
		assertThat(result).isEqualTo("done");
		assertThat(this.heard).containsExactly("a open of order-1", "a attempt 1 of order-1", "a close of order-1");
	}

	@Test
	void anAsyncCallIsDescribedAndItsRetriesOnOtherThreadsSeeIt() {
		RetryTemplate template = template(recording("a"));
		DescribedSupplier supplier = new DescribedSupplier("order-2");
		CompletableFuture<String> result = template.executeAsync(supplier);
		this.time.advance(Duration.ofSeconds(1));
		assertThat(result).isCompletedWithValue("done");
		assertThat(this.heard).containsExactly("a open of order-2", "a attempt 1 of order-2",
				"a attempt 2 of order-2", "a close of order-2");
	}

	@Test
	void anAsyncCallWhoseAttemptsAreHandedTheirContextIsDescribedToo() {
		RetryTemplate template = template(recording("a"));
		DescribedAttempt attempt = new DescribedAttempt("order-9");
		CompletableFuture<String> result = template.executeAsync(attempt);
		this.time.advance(Duration.ofSeconds(1));
		assertThat(result).isCompletedWithValue("done");
		assertThat(attempt.retryCounts).containsExactly(0, 1);
		assertThat(this.heard).containsExactly("a open of order-9", "a attempt 1 of order-9",
				"a attempt 2 of order-9", "a close of order-9");
	}

	@Test
	void aFailbackTaskDescribesItsCall() {
		RetryRegistry registry = RetryRegistry.builder().virtualTime(this.time).listener(recording("a")).build();
		registry.failback("notify").submit("key", new DescribedTask("order-3"));
		assertThat(this.heard).containsExactly("a open of order-3", "a attempt 1 of order-3", "a close of order-3");
	}

	@Test
	void aStatefulCallThatContinuesIsDescribedByTheContinuingCall() {
		RetryTemplate template = template(recording("a"));
		RetryState state = RetryState.of("message-1");
		assertThatThrownBy(() -> template.execute(new FailingCallback("first delivery"), state))
			.isInstanceOf(IOException.class);
		assertThatThrownBy(() -> template.execute(new FailingCallback("second delivery"), state))
			.isInstanceOf(IOException.class);
		assertThat(this.heard).containsExactly("a open of first delivery", "a attempt 1 of first delivery",
				"a close of first delivery", "a open of second delivery", "a attempt 2 of second delivery",
				"a close of second delivery");
	}

	@Test
	void describersAndPlainOperationsTakenInTurnByOneInstanceAreEachHeardAsTheyAre() {
		RetryTemplate template = template(recording("a"));
		for (int round = 1; round <= 3; round++) {
			String plain = template.execute(context -> "plain");
			assertThat(plain).isEqualTo("plain");
			assertThat(template.execute(new DescribedCallback("order-" + round))).isEqualTo("done");
		}
		assertThat(this.heard).containsExactly("a open of null", "a attempt 1 of null", "a close of null",
				"a open of order-1", "a attempt 1 of order-1", "a close of order-1",
				"a open of null", "a attempt 1 of null", "a close of null",
				"a open of order-2", "a attempt 1 of order-2", "a close of order-2",
				"a open of null", "a attempt 1 of null", "a close of null",
				"a open of order-3", "a attempt 1 of order-3", "a close of order-3");
	}

	@Test
	void withoutListenersNothingIsDescribed() {
		DescribedCallback callback = new DescribedCallback("order-4");
		assertThat(template().execute(callback)).isEqualTo("done");
		assertThat(callback.described).isZero();
	}

	@Test
	void aThrowingDescriberIsCountedAndTheCallGoesOn() {
		RetryTemplate template = template(recording("a"));
		assertThat(template.execute(new DescribedCallback(null))).isEqualTo("done");
		assertThat(template.getMetrics().getListenerFailures()).isEqualTo(1);
		assertThat(this.heard).containsExactly("a open of null", "a attempt 1 of null", "a close of null");
	}

	@Test
	void aCallSitesListenersHearItsCallsInsteadOfTheInstancesAndEachFailureIsCountedOnItsOwn() {
		RetryTemplate instance = template(recording("global"));
		RetryListener broken = new RetryListener() {
			@Override
			public boolean open(RetryContext context) {
				throw new IllegalStateException("broken");
			}
		};
		RetryTemplate chosen = instance.withListeners(List.of(broken, recording("chosen"), broken));
		assertThat(chosen.execute(new DescribedCallback("order-5"))).isEqualTo("done");
		assertThat(this.heard).containsExactly("chosen open of order-5", "chosen attempt 1 of order-5",
				"chosen close of order-5");
		assertThat(instance.getMetrics().getListenerFailures()).isEqualTo(2);
		assertThat(instance.getMetrics().getSuccessfulCallsWithoutRetry()).isEqualTo(1);
		assertThat(instance.withListeners(List.of()).execute(new DescribedCallback("order-6"))).isEqualTo("done");
		assertThat(this.heard).hasSize(3);
	}

	@Test
	void aCallSitesListenersFollowLiveChangesAlsoOnAVariantOfAVariant() {
		RetryRegistry registry = RetryRegistry.builder().virtualTime(this.time)
			.instance("orders", RetryConfig.builder().maxAttempts(2).build())
			.build();
		RetryTemplate variant = registry.template("orders")
			.variant(config -> RetryConfig.builder(config).backoff(dev.retrykit.backoff.BackoffPolicy.none()).build());
		RetryTemplate chosen = variant.withListeners(List.of(recording("chosen")));
		registry.replace("orders", RetryConfig.builder().maxAttempts(4).build());
		assertThat(chosen.getConfig().getMaxAttempts()).isEqualTo(4);
		assertThatThrownBy(() -> chosen.execute(new FailingCallback("order-7"))).isInstanceOf(IOException.class);
		assertThat(this.heard).filteredOn(event -> event.startsWith("chosen attempt")).hasSize(4);
	}

	private static final class DescribedCallback implements RetryCallback<String, RuntimeException>, RetryCallDescriber {

		private final @Nullable String call;

		int described;

		DescribedCallback(@Nullable String call) {
			this.call = call;
		}

		@Override
		public String doWithRetry(RetryContext context) {
			return "done";
		}

		@Override
		public void describe(RetryContext context) {
			this.described++;
			if (this.call == null) {
				throw new IllegalStateException("cannot describe");
			}
			context.setAttribute("call", this.call);
		}

	}

	private static final class FailingCallback implements RetryCallback<String, IOException>, RetryCallDescriber {

		private final String call;

		FailingCallback(String call) {
			this.call = call;
		}

		@Override
		public String doWithRetry(RetryContext context) throws IOException {
			throw new IOException("down");
		}

		@Override
		public void describe(RetryContext context) {
			context.setAttribute("call", this.call);
		}

	}

	private static final class DescribedSupplier implements Supplier<CompletionStage<String>>, RetryCallDescriber {

		private final String call;

		private int attempts;

		DescribedSupplier(String call) {
			this.call = call;
		}

		@Override
		public CompletionStage<String> get() {
			return (++this.attempts == 1) ? CompletableFuture.failedFuture(new IOException("down"))
					: CompletableFuture.completedFuture("done");
		}

		@Override
		public void describe(RetryContext context) {
			context.setAttribute("call", this.call);
		}

	}

	private static final class DescribedAttempt
			implements Function<RetryContext, CompletionStage<String>>, RetryCallDescriber {

		private final String call;

		final List<Integer> retryCounts = new CopyOnWriteArrayList<>();

		DescribedAttempt(String call) {
			this.call = call;
		}

		@Override
		public CompletionStage<String> apply(RetryContext context) {
			this.retryCounts.add(context.getRetryCount());
			return (context.getRetryCount() == 0) ? CompletableFuture.failedFuture(new IOException("down"))
					: CompletableFuture.completedFuture("done");
		}

		@Override
		public void describe(RetryContext context) {
			context.setAttribute("call", this.call);
		}

	}

	private static final class DescribedTask implements Runnable, RetryCallDescriber {

		private final String call;

		DescribedTask(String call) {
			this.call = call;
		}

		@Override
		public void run() {
		}

		@Override
		public void describe(RetryContext context) {
			context.setAttribute("call", this.call);
		}

	}

}
