package dev.retrykit.reactor;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

import dev.retrykit.RetryConfig;
import dev.retrykit.RetryConfigBuilder;
import dev.retrykit.context.RetryContext;
import dev.retrykit.RetryListener;
import dev.retrykit.RetryMetrics;
import dev.retrykit.RetryRegistry;
import dev.retrykit.RetryTemplate;
import dev.retrykit.VirtualTime;
import dev.retrykit.hedging.HedgingConfig;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;
import reactor.util.context.Context;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * A {@code Mono} on a hedging instance, in virtual time: its copies are subscriptions that race, the
 * first accepted value is emitted and every other copy is cancelled; a {@code Flux} is refused.
 */
class RetryOperatorHedgingTests {

	private final VirtualTime time = new VirtualTime();

	private final Copies source = new Copies();

	private final List<String> callbacks = new CopyOnWriteArrayList<>();

	private final AtomicInteger closedCalls = new AtomicInteger();

	private RetryTemplate template(int copies) {
		return template(copies, UnaryOperator.identity());
	}

	private RetryTemplate template(int copies, UnaryOperator<RetryConfigBuilder> settings) {
		RetryConfig config = settings.apply(RetryConfig.builder().maxAttempts(copies)
			.hedging(HedgingConfig.builder().delay(Duration.ofMillis(10)).build())).build();
		return RetryTemplate.builder().name("search").virtualTime(this.time).config(config)
			.listener(new RetryListener() {
				@Override
				public void onSuccess(RetryContext context, @Nullable Object result) {
					RetryOperatorHedgingTests.this.callbacks.add("success " + result);
				}

				@Override
				public void close(RetryContext context, @Nullable Throwable failure) {
					RetryOperatorHedgingTests.this.closedCalls.incrementAndGet();
				}
			})
			.build();
	}

	@Test
	void aCopySubscribesAfterTheDelayWithTheSubscribersContextAndTheFirstValueWins() {
		RetryTemplate template = template(3);
		StepVerifier.create(this.source.transform(RetryOperator.of(template)).contextWrite(Context.of("user", "alice")))
			.then(() -> assertThat(this.source.subscriptions()).isEqualTo(1))
			.then(() -> this.time.advance(Duration.ofMillis(10).minusNanos(1)))
			.then(() -> assertThat(this.source.subscriptions()).isEqualTo(1))
			.then(() -> this.time.advance(Duration.ofNanos(1)))
			.then(() -> assertThat(this.source.subscriptions()).isEqualTo(2))
			.then(() -> this.source.copy(2).succeed("second"))
			.expectNext("second")
			.verifyComplete();
		assertThat(this.source.copy(1).cancels).isEqualTo(1);
		assertThat(this.source.copy(2).cancels).isZero();
		assertThat(List.of(this.source.copy(1).hedged, this.source.copy(2).hedged)).containsExactly(false, true);
		assertThat(List.of(this.source.copy(1).user, this.source.copy(2).user)).containsExactly("alice", "alice");
		this.time.advance(Duration.ofSeconds(1));
		assertThat(this.source.subscriptions()).isEqualTo(2);
		RetryMetrics metrics = template.getMetrics();
		assertThat(metrics.getHedgesStarted()).isEqualTo(1);
		assertThat(metrics.getHedgesWon()).isEqualTo(1);
		// The call did not succeed on its first attempt: it is counted as one that succeeded with retry.
		assertThat(metrics.getSuccessfulCallsWithRetry()).isEqualTo(1);
		assertThat(this.callbacks).containsExactly("success second");
	}

	@Test
	void eachCopyFindsItsOwnRetryContextInTheContextItIsSubscribedWith() {
		StepVerifier.create(this.source.transform(RetryOperator.of(template(3))))
			.then(() -> this.time.advance(Duration.ofMillis(20)))
			.then(() -> this.source.copy(3).succeed("third"))
			.expectNext("third")
			.verifyComplete();
		assertThat(List.of(this.source.copy(1).handed, this.source.copy(2).handed, this.source.copy(3).handed))
			.containsExactly("retry count 0, hedged null", "retry count 1, hedged true", "retry count 2, hedged true");
	}

	@Test
	void aLosersLateSignalsNeverReachDownstream() {
		List<Object> signals = new CopyOnWriteArrayList<>();
		this.source.transform(RetryOperator.of(template(3))).subscribe(signals::add, signals::add,
				() -> signals.add("complete"));
		this.time.advance(Duration.ofMillis(20));
		assertThat(this.source.subscriptions()).isEqualTo(3);

		this.source.copy(3).succeed("third");
		this.source.copy(1).succeed("first, too late");
		this.source.copy(2).fail(new IOException("second, too late"));

		assertThat(signals).containsExactly("third", "complete");
		assertThat(this.source.copy(1).cancels).isEqualTo(1);
		assertThat(this.source.copy(2).cancels).isEqualTo(1);
		assertThat(this.callbacks).containsExactly("success third");
	}

	@Test
	void aRetryableFailureStartsTheNextCopyAtOnce() {
		StepVerifier.create(this.source.transform(RetryOperator.of(template(3))))
			.then(() -> this.source.copy(1).fail(new IOException("down")))
			.then(() -> assertThat(this.source.subscriptions()).isEqualTo(2))
			.then(() -> this.source.copy(2).succeed("ok"))
			.expectNext("ok")
			.verifyComplete();
		assertThat(this.time.elapsed()).isZero();
	}

	@Test
	void aNonRetryableFailureEndsTheCallAndCancelsTheCopiesInFlight() {
		RetryTemplate template = template(3, builder -> builder.retryOn(IOException.class));
		StepVerifier.create(this.source.transform(RetryOperator.of(template)))
			.then(() -> this.time.advance(Duration.ofMillis(10)))
			.then(() -> this.source.copy(2).fail(new IllegalStateException("bad request")))
			.expectErrorSatisfies(failure -> assertThat(failure).isExactlyInstanceOf(IllegalStateException.class)
				.hasMessage("bad request"))
			.verify();
		assertThat(this.source.copy(1).cancels).isEqualTo(1);
		assertThat(this.source.open()).isZero();
		assertThat(template.getMetrics().getHedgesCancelled()).isZero();
		assertThat(template.getMetrics().getHedgesLost()).isEqualTo(1);
	}

	@Test
	void whenEveryCopyFailsTheRecoveryGetsTheLastFailureWithTheSubscribersContext() {
		RetryTemplate template = template(2);
		Mono<String> hedged = this.source.transform(RetryOperator.<String>of(template)
			.withRecovery(failure -> Mono.deferContextual(context -> Mono.just("cached for "
					+ context.getOrDefault("user", "<none>") + " after " + Objects.requireNonNull(failure).getMessage()))));
		StepVerifier.create(hedged.contextWrite(Context.of("user", "alice")))
			.then(() -> this.time.advance(Duration.ofMillis(10)))
			.then(() -> this.source.copy(1).fail(new IOException("first down")))
			.then(() -> this.source.copy(2).fail(new IOException("second down")))
			.expectNext("cached for alice after second down")
			.verifyComplete();
		assertThat(this.source.subscriptions()).isEqualTo(2);
		assertThat(template.getMetrics().getRecoveries()).isEqualTo(1);
	}

	@Test
	void anEmptyCopyWinsAsAnEmptyMono() {
		StepVerifier.create(this.source.transform(RetryOperator.of(template(3))))
			.then(() -> this.time.advance(Duration.ofMillis(10)))
			.then(() -> this.source.copy(2).complete())
			.verifyComplete();
		assertThat(this.source.copy(1).cancels).isEqualTo(1);
	}

	@Test
	void aValueRejectedByTheResultPredicateIsNeverEmittedAndTheNextCopyStartsAtOnce() {
		RetryTemplate template = template(3, builder -> builder.retryOnResult("pending"::equals));
		StepVerifier.create(this.source.transform(RetryOperator.of(template)))
			.then(() -> this.source.copy(1).succeed("pending"))
			.then(() -> assertThat(this.source.subscriptions()).isEqualTo(2))
			.then(() -> this.source.copy(2).succeed("done"))
			.expectNext("done")
			.verifyComplete();
		assertThat(this.time.elapsed()).isZero();
	}

	@Test
	void theResultPredicateSeesNullForAnEmptyCopy() {
		RetryTemplate template = template(3, builder -> builder.retryOnResult(Objects::isNull));
		StepVerifier.create(this.source.transform(RetryOperator.of(template)))
			.then(() -> this.source.copy(1).complete())
			.then(() -> assertThat(this.source.subscriptions()).isEqualTo(2))
			.then(() -> this.source.copy(2).succeed("found"))
			.expectNext("found")
			.verifyComplete();
	}

	@Test
	void cancellingDownstreamCancelsEveryCopyInFlightAndNoCopyStartsAfter() {
		Disposable subscription = this.source.transform(RetryOperator.of(template(3))).subscribe();
		this.time.advance(Duration.ofMillis(10));
		assertThat(this.source.subscriptions()).isEqualTo(2);

		subscription.dispose();

		assertThat(this.source.copy(1).cancels).isEqualTo(1);
		assertThat(this.source.copy(2).cancels).isEqualTo(1);
		this.time.advance(Duration.ofSeconds(1));
		assertThat(this.source.subscriptions()).isEqualTo(2);
		assertThat(this.time.pendingTasks()).isZero();
		assertThat(this.closedCalls).hasValue(1);
	}

	@Test
	void aZeroDelayStartsEveryCopyOnSubscription() {
		RetryTemplate template = template(3,
				builder -> builder.hedging(HedgingConfig.builder().delay(Duration.ZERO).maxExtraLoad(2).build()));
		StepVerifier.create(this.source.transform(RetryOperator.of(template)))
			.then(() -> assertThat(this.source.subscriptions()).isEqualTo(3))
			.then(() -> this.source.copy(1).succeed("first"))
			.expectNext("first")
			.verifyComplete();
		assertThat(this.source.open()).isZero();
		assertThat(template.getMetrics().getHedgesLost()).isEqualTo(2);
	}

	@Test
	void aFluxOnAHedgingInstanceIsRefusedAtAssembly() {
		RetryOperator<Integer> operator = RetryOperator.of(template(3));
		assertThatIllegalArgumentException().isThrownBy(() -> Flux.just(1, 2).transform(operator))
			.withMessage("Retry 'search' hedges, and a Flux cannot be hedged: the elements of two copies of a "
					+ "stream cannot be raced. Hedge a Mono (e.g. the Flux's collectList()), or retry the Flux with "
					+ "an instance whose hedging is not enabled.");
	}

	@Test
	void aFluxAssembledBeforeHedgingWasSwitchedOnFailsWhenSubscribed() {
		RetryRegistry registry = RetryRegistry.builder().virtualTime(this.time)
			.instance("search", RetryConfig.builder().maxAttempts(3).build())
			.build();
		AtomicInteger subscriptions = new AtomicInteger();
		Flux<Integer> retried = Flux.defer(() -> {
			subscriptions.incrementAndGet();
			return Flux.just(1, 2);
		}).transform(RetryOperator.of(registry.template("search")));

		registry.replace("search", RetryConfig.builder().maxAttempts(3)
			.hedging(HedgingConfig.builder().delay(Duration.ofMillis(10)).build()).build());

		StepVerifier.create(retried)
			.expectErrorSatisfies(failure -> assertThat(failure).isExactlyInstanceOf(IllegalStateException.class)
				.hasMessageContaining("Retry 'search' hedges, and a Flux cannot be hedged"))
			.verify();
		assertThat(subscriptions).hasValue(0);
	}

}
