package dev.retrykit.reactor;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import dev.retrykit.RetryTemplate;
import dev.retrykit.VirtualTime;
import dev.retrykit.backoff.BackoffPolicy;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;
import reactor.util.context.Context;

import static org.assertj.core.api.Assertions.assertThat;

class RetryOperatorFluxTests {

	private final VirtualTime time = new VirtualTime();

	private final AtomicInteger subscriptions = new AtomicInteger();

	private final List<String> requests = new CopyOnWriteArrayList<>();

	private final RetryTemplate template = RetryTemplate.builder().name("events").virtualTime(this.time)
		.maxAttempts(3).backoff(BackoffPolicy.fixed(Duration.ofMillis(100))).build();

	/** Emits 1, 2 and fails on its first subscription; emits 1, 2, 3 on the next ones. Records requests. */
	private Flux<Integer> failsOnceAfterTwo() {
		return Flux.defer(() -> {
			int n = this.subscriptions.incrementAndGet();
			Flux<Integer> elements = (n == 1) ? Flux.just(1, 2).concatWith(Flux.error(new IOException("down")))
					: Flux.just(1, 2, 3);
			return elements.doOnRequest(r -> this.requests.add(n + ":" + r));
		});
	}

	@Test
	void elementsStreamDownstreamBeforeTheFluxCompletes() {
		Flux<Integer> endless = Flux.concat(Flux.just(1, 2), Flux.never());
		StepVerifier.create(endless.transformDeferred(RetryOperator.of(this.template)))
			.expectNext(1, 2)
			.thenCancel()
			.verify();
	}

	@Test
	void elementsEmittedBeforeAFailureAreEmittedAgainByTheRetry() {
		StepVerifier.create(failsOnceAfterTwo().transformDeferred(RetryOperator.of(this.template)))
			.expectNext(1, 2)
			.then(() -> this.time.advance(Duration.ofMillis(100)))
			.expectNext(1, 2, 3)
			.verifyComplete();
		assertThat(this.template.getMetrics().getSuccessfulCallsWithRetry()).isEqualTo(1);
	}

	@Test
	void allOrNothingEmitsOnlyTheSuccessfulAttemptsElements() {
		StepVerifier.create(failsOnceAfterTwo().transformDeferred(RetryOperator.<Integer>of(this.template).allOrNothing()))
			.expectSubscription()
			.expectNoEvent(Duration.ZERO)
			.then(() -> this.time.advance(Duration.ofMillis(100)))
			.expectNext(1, 2, 3)
			.verifyComplete();
	}

	@Test
	void allOrNothingEmitsTheBufferedElementsAsDownstreamRequestsThem() {
		StepVerifier.create(failsOnceAfterTwo().transformDeferred(RetryOperator.<Integer>of(this.template).allOrNothing()), 1)
			.then(() -> this.time.advance(Duration.ofMillis(100)))
			.expectNext(1)
			.expectNoEvent(Duration.ZERO)
			.thenRequest(2)
			.expectNext(2, 3)
			.verifyComplete();
	}

	@Test
	void allOrNothingLetsTheResultPredicateSeeTheAttemptsElements() {
		List<Object> seen = new CopyOnWriteArrayList<>();
		RetryTemplate template = RetryTemplate.builder().virtualTime(this.time).backoff(BackoffPolicy.none())
			.retryOnResult(result -> seen.add(result) && ((List<?>) result).size() < 3).build();
		StepVerifier.create(failsOnceAfterTwo().onErrorResume(IOException.class, failure -> Flux.empty())
			.transformDeferred(RetryOperator.<Integer>of(template).allOrNothing()))
			.expectNext(1, 2, 3)
			.verifyComplete();
		assertThat(seen).containsExactly(List.of(1, 2), List.of(1, 2, 3));
	}

	@Test
	void takeOfAnEndlessFluxUnderRetryCompletesAndCancelsTheSource() {
		AtomicInteger cancelled = new AtomicInteger();
		Flux<Integer> source = Flux.defer(() -> (this.subscriptions.incrementAndGet() == 1)
				? Flux.just(-1).concatWith(Flux.error(new IOException("down")))
				: Flux.<Integer, Integer>generate(() -> 0, (n, sink) -> {
					sink.next(n);
					return n + 1;
				}).doOnCancel(cancelled::incrementAndGet));
		StepVerifier.create(source.transformDeferred(RetryOperator.of(this.template)).take(4))
			.expectNext(-1)
			.then(() -> this.time.advance(Duration.ofMillis(100)))
			.expectNext(0, 1, 2)
			.verifyComplete();
		assertThat(cancelled).hasValue(1);
		assertThat(this.time.pendingTasks()).isZero();
	}

	@Test
	void backpressureHoldsAcrossARetry() {
		StepVerifier.create(failsOnceAfterTwo().transformDeferred(RetryOperator.of(this.template)), 0)
			.thenRequest(1)
			.expectNext(1)
			.thenRequest(1)
			.expectNext(2)
			.then(() -> this.time.advance(Duration.ofMillis(100)))
			.expectNoEvent(Duration.ZERO)
			.thenRequest(1)
			.expectNext(1)
			.thenRequest(1)
			.expectNext(2)
			.thenRequest(1)
			.expectNext(3)
			.verifyComplete();
		// The retry's subscription is asked for nothing until downstream asks: no element beyond the demand.
		assertThat(this.requests).containsExactly("1:1", "1:1", "2:1", "2:1", "2:1");
	}

	@Test
	void demandLeftOverFromAFailedAttemptIsRequestedFromTheRetry() {
		StepVerifier.create(failsOnceAfterTwo().transformDeferred(RetryOperator.of(this.template)), 5)
			.expectNext(1, 2)
			.then(() -> this.time.advance(Duration.ofMillis(100)))
			.expectNext(1, 2, 3)
			.verifyComplete();
		assertThat(this.requests).containsExactly("1:5", "2:3");
	}

	@Test
	void theSubscribersContextReachesEveryAttemptOfAFlux() {
		List<String> seen = new CopyOnWriteArrayList<>();
		Flux<String> source = Flux.deferContextual(context -> {
			String user = "user=" + context.getOrDefault("user", "<none>");
			seen.add(user);
			return (seen.size() == 1) ? Flux.just(user).concatWith(Flux.error(new IOException("down")))
					: Flux.just(user);
		});
		StepVerifier.create(source.transformDeferred(RetryOperator.of(this.template))
			.contextWrite(Context.of("user", "alice")))
			.expectNext("user=alice")
			.then(() -> this.time.advance(Duration.ofMillis(100)))
			.expectNext("user=alice")
			.verifyComplete();
		assertThat(seen).containsExactly("user=alice", "user=alice");
	}

	@Test
	void theRecoverysFluxStreamsAfterTheLastFailure() {
		RetryTemplate template = RetryTemplate.builder().virtualTime(this.time).maxAttempts(1).build();
		Flux<Integer> source = Flux.just(1).concatWith(Flux.error(new IOException("down")));
		StepVerifier.create(source.transformDeferred(RetryOperator.<Integer>of(template)
			.withRecovery(failure -> Flux.concat(Flux.just(9, 8), Flux.never()))))
			.expectNext(1, 9, 8)
			.thenCancel()
			.verify();
	}

	@Test
	void aCompletedRecoveryCountsAsRecovered() {
		RetryTemplate template = RetryTemplate.builder().virtualTime(this.time).maxAttempts(1).build();
		Flux<Integer> source = Flux.just(1).concatWith(Flux.error(new IOException("down")));
		StepVerifier.create(source.transformDeferred(RetryOperator.<Integer>of(template)
			.withRecovery(failure -> Flux.just(9, 8))))
			.expectNext(1, 9, 8)
			.verifyComplete();
		assertThat(template.getMetrics().getRecoveries()).isEqualTo(1);
	}

	@Test
	void allOrNothingBuffersTheRecoveryToo() {
		RetryTemplate template = RetryTemplate.builder().virtualTime(this.time).maxAttempts(1).build();
		Flux<Integer> source = Flux.just(1).concatWith(Flux.error(new IOException("down")));
		StepVerifier.create(source.transformDeferred(RetryOperator.<Integer>of(template).allOrNothing()
			.withRecovery(failure -> Flux.just(9, 8))))
			.expectNext(9, 8)
			.verifyComplete();
	}

	@Test
	void aFluxThatFailsEveryAttemptEndsWithItsLastFailure() {
		Flux<Integer> source = Flux.defer(() -> Flux.just(this.subscriptions.incrementAndGet())
			.concatWith(Flux.error(new IOException("down " + this.subscriptions.get()))));
		StepVerifier.create(source.transformDeferred(RetryOperator.of(this.template)))
			.expectNext(1)
			.then(() -> this.time.advance(Duration.ofMillis(100)))
			.expectNext(2)
			.then(() -> this.time.advance(Duration.ofMillis(100)))
			.expectNext(3)
			.expectErrorMessage("down 3")
			.verify();
		assertThat(this.template.getMetrics().getFailedCallsWithRetry()).isEqualTo(1);
	}

}
