package dev.retrykit.spring.boot.observation;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

import dev.retrykit.RetryConfig;
import dev.retrykit.RetryTemplate;
import dev.retrykit.VirtualTime;
import dev.retrykit.hedging.HedgingConfig;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.tck.TestObservationRegistry;
import org.junit.jupiter.api.Test;

import static io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The observations of hedged async calls, in virtual time: each copy is a {@code retry.attempt} under
 * the call with key {@code hedged}, every one of them is stopped, a copy still in flight when the call
 * ends shows its cancellation, and the call's outcome is the one the engine counted.
 */
class HedgedCallObservationTests {

	private final VirtualTime time = new VirtualTime();

	private final TestObservationRegistry registry = TestObservationRegistry.create();

	/** The contexts of the observations stopped, in order. */
	private final List<Observation.Context> stopped = new CopyOnWriteArrayList<>();

	/** The copies' stages, answered by hand. */
	private final List<CompletableFuture<String>> copies = new CopyOnWriteArrayList<>();

	HedgedCallObservationTests() {
		this.registry.observationConfig().observationHandler(new ObservationHandler<>() {
			@Override
			public boolean supportsContext(Observation.Context context) {
				return true;
			}

			@Override
			public void onStop(Observation.Context context) {
				HedgedCallObservationTests.this.stopped.add(context);
			}
		});
	}

	private RetryTemplate template(int copies, long delayMillis) {
		RetryConfig config = RetryConfig.builder().maxAttempts(copies)
			.hedging(HedgingConfig.builder().delay(Duration.ofMillis(delayMillis)).build()).build();
		return RetryTemplate.builder().name("search").virtualTime(this.time).config(config)
			.listener(new RetryObservationListener(this.registry)).build();
	}

	private final Supplier<CompletionStage<String>> downstream = () -> {
		CompletableFuture<String> copy = new CompletableFuture<>();
		this.copies.add(copy);
		return copy;
	};

	@Test
	void whenTheHedgeWinsTheFirstCopyIsCancelledAndBothAttemptsAreStopped() {
		RetryTemplate template = template(2, 10);
		CompletableFuture<String> call = template.executeAsync(this.downstream);
		this.time.advance(Duration.ofMillis(10));
		assertThat(this.copies).hasSize(2);

		this.copies.get(1).complete("second");

		assertThat(call).isCompletedWithValue("second");
		assertEveryObservationWasStopped();
		assertThat(this.copies.get(0)).isCancelled();
		assertThat(this.registry).hasNumberOfObservationsWithNameEqualTo("retry.attempt", 2)
			.hasAnObservation(attempt -> attempt.hasNameEqualTo("retry.attempt").hasHighCardinalityKeyValue("attempt", "1")
				.hasLowCardinalityKeyValue("hedged", "false").hasLowCardinalityKeyValue("exception", "CancellationException")
				.assertThatError().isInstanceOf(CancellationException.class)
				.hasMessageContaining("Another copy"))
			.hasAnObservation(attempt -> attempt.hasNameEqualTo("retry.attempt").hasHighCardinalityKeyValue("attempt", "2")
				.hasLowCardinalityKeyValue("hedged", "true").hasLowCardinalityKeyValue("exception", "none")
				.doesNotHaveError());
		assertEachAttemptIsAChildOfTheCall();
		// The call did not succeed on its first attempt: it counts, and is observed, as successful with retry.
		assertThat(template.getMetrics().getSuccessfulCallsWithRetry()).isEqualTo(1);
		assertThat(this.registry).hasObservationWithNameEqualTo("retry.call").that()
			.hasLowCardinalityKeyValue("outcome", "successful_with_retry")
			.hasLowCardinalityKeyValue("exception", "none").hasBeenStopped().doesNotHaveError();
		assertThat(this.registry.getCurrentObservation()).isNull();
	}

	@Test
	void whenTheFirstCopyWinsTheHedgeIsCancelled() {
		RetryTemplate template = template(3, 10);
		CompletableFuture<String> call = template.executeAsync(this.downstream);
		this.time.advance(Duration.ofMillis(20));
		assertThat(this.copies).hasSize(3);

		this.copies.get(0).complete("first");

		assertThat(call).isCompletedWithValue("first");
		assertEveryObservationWasStopped();
		assertThat(this.registry).hasNumberOfObservationsWithNameEqualTo("retry.attempt", 3)
			.hasAnObservation(attempt -> attempt.hasHighCardinalityKeyValue("attempt", "1")
				.hasLowCardinalityKeyValue("hedged", "false").hasLowCardinalityKeyValue("exception", "none"))
			.hasAnObservation(attempt -> attempt.hasHighCardinalityKeyValue("attempt", "2")
				.hasLowCardinalityKeyValue("hedged", "true").hasLowCardinalityKeyValue("exception", "CancellationException"))
			.hasAnObservation(attempt -> attempt.hasHighCardinalityKeyValue("attempt", "3")
				.hasLowCardinalityKeyValue("hedged", "true").hasLowCardinalityKeyValue("exception", "CancellationException"));
		assertEachAttemptIsAChildOfTheCall();
		assertThat(this.registry).hasObservationWithNameEqualTo("retry.call").that()
			.hasLowCardinalityKeyValue("outcome", "successful_without_retry");
	}

	@Test
	void aFailedCopyIsAFailedAttemptAndTheRetryCopyAfterItIsAHedge() {
		RetryTemplate template = template(2, 10);
		CompletableFuture<String> call = template.executeAsync(this.downstream);

		this.copies.get(0).completeExceptionally(new IllegalStateException("down"));
		assertThat(this.copies).hasSize(2);
		this.copies.get(1).complete("second");

		assertThat(call).isCompletedWithValue("second");
		assertEveryObservationWasStopped();
		assertThat(this.registry).hasNumberOfObservationsWithNameEqualTo("retry.attempt", 2)
			.hasAnObservation(attempt -> attempt.hasHighCardinalityKeyValue("attempt", "1")
				.hasLowCardinalityKeyValue("hedged", "false").hasLowCardinalityKeyValue("exception", "IllegalStateException"))
			.hasAnObservation(attempt -> attempt.hasHighCardinalityKeyValue("attempt", "2")
				.hasLowCardinalityKeyValue("hedged", "true").hasLowCardinalityKeyValue("exception", "none"));
		assertThat(this.registry).hasObservationWithNameEqualTo("retry.call").that()
			.hasLowCardinalityKeyValue("outcome", "successful_with_retry");
	}

	@Test
	void cancellingTheCallStopsEveryCopyWithTheCallersCancellation() {
		RetryTemplate template = template(2, 10);
		CompletableFuture<String> call = template.executeAsync(this.downstream);
		this.time.advance(Duration.ofMillis(10));

		assertThat(call.cancel(true)).isTrue();
		assertEveryObservationWasStopped();

		assertThat(this.registry).hasNumberOfObservationsWithNameEqualTo("retry.attempt", 2)
			.forAllObservationsWithNameEqualTo("retry.attempt",
					attempt -> attempt.hasLowCardinalityKeyValue("exception", "CallCancelledException"));
		assertThat(this.registry).hasObservationWithNameEqualTo("retry.call").that()
			.hasLowCardinalityKeyValue("outcome", "failed_without_retry")
			.hasLowCardinalityKeyValue("exception", "CallCancelledException").hasBeenStopped();
	}

	@Test
	void aCopyWhoseCallEndsWhileItsSupplierRunsLeavesNoScopeBehind() {
		RetryTemplate template = template(2, 10);
		CompletableFuture<String> call = template.executeAsync(() -> {
			if (this.copies.size() == 1) {
				// The second copy's supplier: the first copy answers while it runs, and the call ends.
				this.copies.get(0).complete("first");
			}
			return this.downstream.get();
		});

		this.time.advance(Duration.ofMillis(10));

		assertThat(call).isCompletedWithValue("first");
		assertEveryObservationWasStopped();
		assertThat(this.registry.getCurrentObservation()).isNull();
		assertThat(this.registry).hasNumberOfObservationsWithNameEqualTo("retry.attempt", 2)
			.hasAnObservation(attempt -> attempt.hasHighCardinalityKeyValue("attempt", "2")
				.hasLowCardinalityKeyValue("hedged", "true").hasLowCardinalityKeyValue("exception", "CancellationException"));
	}

	@Test
	void anAttemptOfACallThatDoesNotHedgeIsNotAHedge() throws Exception {
		RetryTemplate template = RetryTemplate.builder().name("search").virtualTime(this.time)
			.listener(new RetryObservationListener(this.registry)).build();

		template.execute(context -> "ok");

		assertThat(this.registry).hasObservationWithNameEqualTo("retry.attempt").that()
			.hasLowCardinalityKeyValue("hedged", "false");
	}

	/** Every observation started was stopped, once. */
	private void assertEveryObservationWasStopped() {
		assertThat(this.registry).hasHandledContextsThatSatisfy(
				contexts -> assertThat(this.stopped).containsExactlyInAnyOrderElementsOf(contexts));
	}

	private void assertEachAttemptIsAChildOfTheCall() {
		assertThat(this.registry).hasHandledContextsThatSatisfy(contexts -> {
			Observation.Context call = contexts.stream().filter(RetryObservationContext.class::isInstance)
				.findFirst().orElseThrow();
			assertThat(contexts.stream().filter(RetryAttemptObservationContext.class::isInstance))
				.allSatisfy(attempt -> assertThat(attempt.getParentObservation().getContextView()).isSameAs(call));
		});
	}

}
