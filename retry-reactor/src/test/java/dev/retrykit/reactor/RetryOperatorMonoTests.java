package dev.retrykit.reactor;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import dev.retrykit.RetryConfig;
import dev.retrykit.context.RetryContext;
import dev.retrykit.RetryEvent;
import dev.retrykit.RetryEventType;
import dev.retrykit.RetryListener;
import dev.retrykit.RetryTemplate;
import dev.retrykit.VirtualTime;
import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.budget.RetryBudgetConfig;
import dev.retrykit.circuit.CircuitBreakerConfig;
import dev.retrykit.circuit.CircuitOpenException;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;
import reactor.util.context.Context;

import static org.assertj.core.api.Assertions.assertThat;

class RetryOperatorMonoTests {

	private final VirtualTime time = new VirtualTime();

	private final AtomicInteger subscriptions = new AtomicInteger();

	private RetryTemplate template(int maxAttempts) {
		return RetryTemplate.builder().name("inventory").virtualTime(this.time).maxAttempts(maxAttempts)
			.backoff(BackoffPolicy.fixed(Duration.ofMillis(100))).build();
	}

	/** A Mono that fails with {@code IOException("down <n>")} on its first {@code failures} subscriptions. */
	private Mono<String> failingFirst(int failures, String value) {
		return Mono.defer(() -> {
			int n = this.subscriptions.incrementAndGet();
			return (n <= failures) ? Mono.error(new IOException("down " + n)) : Mono.just(value);
		});
	}

	@Test
	void theSubscribersContextReachesEveryAttempt() {
		List<String> seen = new CopyOnWriteArrayList<>();
		Mono<String> source = Mono.deferContextual(context -> {
			String user = "user=" + context.getOrDefault("user", "<none>");
			seen.add(user);
			return (seen.size() == 1) ? Mono.error(new IOException("down")) : Mono.just(user);
		});
		StepVerifier.create(source.transformDeferred(RetryOperator.of(template(3)))
			.contextWrite(Context.of("user", "alice")))
			.then(() -> this.time.advance(Duration.ofMillis(100)))
			.expectNext("user=alice")
			.verifyComplete();
		assertThat(seen).containsExactly("user=alice", "user=alice");
	}

	@Test
	void eachAttemptFindsItsRetryContextInTheContextItIsSubscribedWith() {
		List<String> seen = new CopyOnWriteArrayList<>();
		Mono<String> source = Mono.deferContextual(context -> {
			RetryContext retry = context.getOrDefault(RetryContext.class, null);
			seen.add((retry != null) ? retry.getName() + " " + retry.getRetryCount() : "none");
			return (seen.size() < 3) ? Mono.error(new IOException("down")) : Mono.just("ok");
		});
		StepVerifier.create(source.transformDeferred(RetryOperator.of(template(3))).contextWrite(Context.of("user", "alice")))
			.then(() -> this.time.advance(Duration.ofMillis(200)))
			.expectNext("ok")
			.verifyComplete();
		assertThat(seen).containsExactly("inventory 0", "inventory 1", "inventory 2");
	}

	@Test
	void aFailedAttemptIsRetriedAfterTheBackoffOnTheTemplatesScheduler() {
		RetryTemplate template = template(3);
		StepVerifier.create(failingFirst(2, "ok").transformDeferred(RetryOperator.of(template)))
			.then(() -> assertThat(this.subscriptions).hasValue(1))
			.then(() -> this.time.advance(Duration.ofMillis(99)))
			.then(() -> assertThat(this.subscriptions).hasValue(1))
			.then(() -> this.time.advance(Duration.ofMillis(1)))
			.then(() -> assertThat(this.subscriptions).hasValue(2))
			.then(() -> this.time.advance(Duration.ofMillis(100)))
			.expectNext("ok")
			.verifyComplete();
		assertThat(template.getMetrics().getSuccessfulCallsWithRetry()).isEqualTo(1);
		assertThat(template.getMetrics().getAttempts()).isEqualTo(3);
	}

	@Test
	void whenRetriesAreExhaustedTheLastFailureIsSignalledUnchanged() {
		RetryTemplate template = RetryTemplate.builder().virtualTime(this.time).maxAttempts(2)
			.backoff(BackoffPolicy.none()).build();
		StepVerifier.create(failingFirst(5, "never").transformDeferred(RetryOperator.of(template)))
			.expectErrorSatisfies(failure -> assertThat(failure).isExactlyInstanceOf(IOException.class)
				.hasMessage("down 2").hasNoSuppressedExceptions())
			.verify();
		assertThat(template.getMetrics().getFailedCallsWithRetry()).isEqualTo(1);
	}

	@Test
	void aValueRejectedByTheResultPredicateIsNeverEmitted() {
		AtomicInteger n = new AtomicInteger();
		RetryTemplate template = RetryTemplate.builder().virtualTime(this.time).backoff(BackoffPolicy.none())
			.retryOnResult("pending"::equals).build();
		Mono<String> source = Mono.fromSupplier(() -> (n.incrementAndGet() < 3) ? "pending" : "done");
		StepVerifier.create(source.transformDeferred(RetryOperator.of(template))).expectNext("done").verifyComplete();
		assertThat(n).hasValue(3);
	}

	@Test
	void whenResultRetriesAreExhaustedTheLastValueIsEmitted() {
		RetryTemplate template = RetryTemplate.builder().virtualTime(this.time).backoff(BackoffPolicy.none())
			.retryOnResult("pending"::equals).build();
		StepVerifier.create(Mono.just("pending").transformDeferred(RetryOperator.of(template)))
			.expectNext("pending")
			.verifyComplete();
	}

	@Test
	void anEmptyMonoCompletesEmpty() {
		StepVerifier.create(Mono.<String>empty().transformDeferred(RetryOperator.of(template(3)))).verifyComplete();
	}

	@Test
	void theRecoveryGetsTheLastFailureAndItsMonoIsTheResult() {
		RetryTemplate template = template(2);
		Mono<String> retried = failingFirst(5, "never").transformDeferred(RetryOperator.<String>of(template)
			.withRecovery(failure -> Mono.deferContextual(context -> Mono.just("cached for "
					+ context.getOrDefault("user", "<none>") + " after " + failure.getMessage()))));
		StepVerifier.create(retried.contextWrite(Context.of("user", "alice")))
			.then(() -> this.time.advance(Duration.ofMillis(100)))
			.expectNext("cached for alice after down 2")
			.verifyComplete();
		assertThat(template.getMetrics().getRecoveries()).isEqualTo(1);
	}

	@Test
	void aRecoveryThatReturnsNullEndsTheCallWithAnErrorNamingIt() {
		RetryTemplate template = RetryTemplate.builder().name("inventory").virtualTime(this.time).maxAttempts(1).build();
		StepVerifier.create(failingFirst(5, "never").transformDeferred(RetryOperator.<String>of(template)
			.withRecovery(failure -> null)))
			.expectErrorSatisfies(failure -> assertThat(failure).isInstanceOf(NullPointerException.class)
				.hasMessageContaining("recovery of retry 'inventory' returned null"))
			.verify();
	}

	@Test
	void whenTheCircuitIsOpenTheSourceIsNotSubscribedAndTheCallEndsAtOnce() {
		RetryTemplate template = RetryTemplate.builder().virtualTime(this.time)
			.config(RetryConfig.builder().circuitBreaker(CircuitBreakerConfig.ofDefaults()).build()).build();
		template.getCircuitBreaker().forceOpen();
		StepVerifier.create(failingFirst(0, "ok").transformDeferred(RetryOperator.of(template)))
			.expectError(CircuitOpenException.class)
			.verify();
		assertThat(this.subscriptions).hasValue(0);
		assertThat(template.getMetrics().getCircuitOpenRejections()).isEqualTo(1);
		assertThat(this.time.sleeps()).isEmpty();
	}

	@Test
	void anOpenCircuitIsRecoveredWhenTheOperatorHasARecovery() {
		RetryTemplate template = RetryTemplate.builder().virtualTime(this.time)
			.config(RetryConfig.builder().circuitBreaker(CircuitBreakerConfig.ofDefaults()).build()).build();
		template.getCircuitBreaker().forceOpen();
		StepVerifier.create(failingFirst(0, "ok").transformDeferred(RetryOperator.<String>of(template)
			.withRecovery(failure -> Mono.just(failure.getClass().getSimpleName()))))
			.expectNext("CircuitOpenException")
			.verifyComplete();
	}

	@Test
	void anExhaustedBudgetEndsTheCallWithItsLastFailure() {
		RetryTemplate template = RetryTemplate.builder().virtualTime(this.time)
			.config(RetryConfig.builder().maxAttempts(10).backoff(BackoffPolicy.none())
				.budget(RetryBudgetConfig.builder().maxTokens(4).build(), null).build())
			.build();
		StepVerifier.create(failingFirst(10, "never").transformDeferred(RetryOperator.of(template)))
			.expectErrorMessage("down 2")
			.verify();
		assertThat(this.subscriptions).hasValue(2);
		assertThat(template.getMetrics().getBudgetExhaustedRejections()).isEqualTo(1);
	}

	@Test
	void theCallsRetryContextIsCurrentWhileTheAttemptSubscribes() {
		List<Integer> retryCounts = new CopyOnWriteArrayList<>();
		Mono<String> source = Mono.defer(() -> {
			retryCounts.add(RetryTemplate.currentContext().getRetryCount());
			return (retryCounts.size() < 3) ? Mono.error(new IOException("down")) : Mono.just("ok");
		});
		StepVerifier.create(source.transformDeferred(RetryOperator.of(template(3))))
			.then(() -> this.time.advance(Duration.ofMillis(200)))
			.expectNext("ok")
			.verifyComplete();
		assertThat(retryCounts).containsExactly(0, 1, 2);
	}

	@Test
	void aSlowAttemptIsCancelledAfterTheAttemptTimeoutAndRetried() {
		AtomicInteger cancelled = new AtomicInteger();
		RetryTemplate template = RetryTemplate.builder().virtualTime(this.time).backoff(BackoffPolicy.none())
			.attemptTimeout(Duration.ofSeconds(1)).build();
		Mono<String> source = Mono.defer(() -> (this.subscriptions.incrementAndGet() == 1)
				? Mono.<String>never().doOnCancel(cancelled::incrementAndGet) : Mono.just("ok"));
		StepVerifier.create(source.transformDeferred(RetryOperator.of(template)))
			.then(() -> this.time.advance(Duration.ofSeconds(1)))
			.expectNext("ok")
			.verifyComplete();
		assertThat(cancelled).hasValue(1);
		assertThat(this.subscriptions).hasValue(2);
	}

	@Test
	void listenersAndEventsSeeTheCallAsAnyOther() {
		List<String> heard = new CopyOnWriteArrayList<>();
		RetryTemplate template = RetryTemplate.builder().virtualTime(this.time).backoff(BackoffPolicy.none())
			.ignore(IllegalArgumentException.class).listener(new RetryListener() {
				@Override
				public boolean open(RetryContext context) {
					heard.add("open");
					return true;
				}

				@Override
				public void onError(RetryContext context, @Nullable Throwable failure) {
					heard.add("error " + failure.getMessage());
				}

				@Override
				public void onSuccess(RetryContext context, @Nullable Object result) {
					heard.add("success " + result);
				}

				@Override
				public void close(RetryContext context, @Nullable Throwable failure) {
					heard.add("close");
				}
			}).build();
		StepVerifier.create(failingFirst(1, "ok").transformDeferred(RetryOperator.of(template)))
			.expectNext("ok")
			.verifyComplete();
		assertThat(heard).containsExactly("open", "error down 1", "success ok", "close");
		assertThat(template.getMetrics().getRecentEvents()).extracting(RetryEvent::type)
			.containsExactly(RetryEventType.RETRY, RetryEventType.SUCCESS_AFTER_RETRY);
		StepVerifier.create(Mono.error(new IllegalArgumentException("bad")).transformDeferred(RetryOperator.of(template)))
			.expectError(IllegalArgumentException.class)
			.verify();
		assertThat(template.getMetrics().getFailedCallsWithoutRetry()).isEqualTo(1);
	}

	@Test
	void aRecoveryThatThrowsEndsTheCallWithItsException() {
		RetryTemplate template = RetryTemplate.builder().virtualTime(this.time).maxAttempts(1).build();
		IllegalStateException broken = new IllegalStateException("recovery broke");
		StepVerifier.create(failingFirst(5, "never").transformDeferred(RetryOperator.<String>of(template)
			.withRecovery(failure -> {
				throw broken;
			})))
			.expectErrorSatisfies(failure -> assertThat(failure).isSameAs(broken))
			.verify();
	}

	@Test
	void theValueWaitsForDemand() {
		StepVerifier.create(Mono.just("ok").transformDeferred(RetryOperator.of(template(3))), 0)
			.expectSubscription()
			.expectNoEvent(Duration.ZERO)
			.thenRequest(1)
			.expectNext("ok")
			.verifyComplete();
	}

	@Test
	void aValueThatArrivedBeforeDownstreamRequestedIsEmittedOnRequest() {
		NotRequesting subscriber = new NotRequesting();
		Mono.just("ok").transformDeferred(RetryOperator.of(template(3))).subscribe(subscriber);
		assertThat(subscriber.signals).isEmpty();

		subscriber.request(1);

		assertThat(subscriber.signals).containsExactly("ok", "complete");
	}

	@Test
	void aValueThatDownstreamCancelledBeforeRequestingIsDiscarded() {
		List<Object> discarded = new CopyOnWriteArrayList<>();
		NotRequesting subscriber = new NotRequesting();
		Mono.just("ok").transformDeferred(RetryOperator.of(template(3))).doOnDiscard(String.class, discarded::add)
			.subscribe(subscriber);

		subscriber.cancel();

		assertThat(discarded).containsExactly("ok");
		assertThat(subscriber.signals).isEmpty();
	}

	/** Requests nothing until told to. */
	private static final class NotRequesting extends BaseSubscriber<String> {

		final List<String> signals = new CopyOnWriteArrayList<>();

		@Override
		protected void hookOnSubscribe(Subscription subscription) {
		}

		@Override
		protected void hookOnNext(String value) {
			this.signals.add(value);
		}

		@Override
		protected void hookOnComplete() {
			this.signals.add("complete");
		}

	}

}
