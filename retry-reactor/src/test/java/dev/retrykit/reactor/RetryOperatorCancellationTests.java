package dev.retrykit.reactor;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import dev.retrykit.context.RetryContext;
import dev.retrykit.RetryListener;
import dev.retrykit.RetryTemplate;
import dev.retrykit.VirtualTime;
import dev.retrykit.backoff.BackoffPolicy;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import static org.assertj.core.api.Assertions.assertThat;

class RetryOperatorCancellationTests {

	private final VirtualTime time = new VirtualTime();

	private final AtomicInteger subscriptions = new AtomicInteger();

	private final AtomicInteger cancelledAttempts = new AtomicInteger();

	private final AtomicInteger closedCalls = new AtomicInteger();

	private final RetryTemplate template = RetryTemplate.builder().virtualTime(this.time).maxAttempts(5)
		.backoff(BackoffPolicy.fixed(Duration.ofSeconds(1))).listener(new RetryListener() {
			@Override
			public void close(RetryContext context, @Nullable Throwable failure) {
				RetryOperatorCancellationTests.this.closedCalls.incrementAndGet();
			}
		}).build();

	@Test
	void cancellingWhileARetryIsPendingCancelsItAndNothingSubscribesAgain() {
		Mono<String> failing = Mono.defer(() -> {
			this.subscriptions.incrementAndGet();
			return Mono.error(new IOException("down"));
		});
		StepVerifier.create(failing.transformDeferred(RetryOperator.of(this.template)))
			.then(() -> assertThat(this.time.pendingTasks()).isEqualTo(1))
			.thenCancel()
			.verify();
		this.time.advance(Duration.ofMinutes(1));
		assertThat(this.subscriptions).hasValue(1);
		assertThat(this.time.pendingTasks()).isZero();
		assertThat(this.closedCalls).hasValue(1);
	}

	@Test
	void cancellingCancelsTheAttemptInFlightAndNothingSubscribesAgain() {
		Mono<String> hanging = Mono.defer(() -> {
			this.subscriptions.incrementAndGet();
			return Mono.<String>never().doOnCancel(this.cancelledAttempts::incrementAndGet);
		});
		Disposable subscription = hanging.transformDeferred(RetryOperator.of(this.template)).subscribe();
		assertThat(this.subscriptions).hasValue(1);
		subscription.dispose();
		this.time.advance(Duration.ofMinutes(1));
		assertThat(this.cancelledAttempts).hasValue(1);
		assertThat(this.subscriptions).hasValue(1);
		assertThat(this.closedCalls).hasValue(1);
	}

	@Test
	void cancellingAStreamingRetryCancelsTheRetrysSubscription() {
		Flux<Integer> source = Flux.defer(() -> (this.subscriptions.incrementAndGet() == 1)
				? Flux.just(1).concatWith(Flux.error(new IOException("down")))
				: Flux.concat(Flux.just(2), Flux.<Integer>never()).doOnCancel(this.cancelledAttempts::incrementAndGet));
		StepVerifier.create(source.transformDeferred(RetryOperator.of(this.template)))
			.expectNext(1)
			.then(() -> this.time.advance(Duration.ofSeconds(1)))
			.expectNext(2)
			.thenCancel()
			.verify();
		this.time.advance(Duration.ofMinutes(1));
		assertThat(this.cancelledAttempts).hasValue(1);
		assertThat(this.subscriptions).hasValue(2);
	}

	@Test
	void cancellingDuringTheRecoveryCancelsTheRecoverysSubscription() {
		RetryTemplate once = RetryTemplate.builder().virtualTime(this.time).maxAttempts(1).build();
		Mono<String> retried = Mono.<String>error(new IOException("down")).transformDeferred(RetryOperator.<String>of(once)
			.withRecovery(failure -> Mono.<String>never().doOnCancel(this.cancelledAttempts::incrementAndGet)));
		Disposable subscription = retried.subscribe();
		subscription.dispose();
		assertThat(this.cancelledAttempts).hasValue(1);
	}

	@Test
	void cancellingDuringTheFirstAttemptsSynchronousEmissionIsNotAFailedAttempt() {
		RetryTemplate noDelay = RetryTemplate.builder().virtualTime(this.time).maxAttempts(5)
			.backoff(BackoffPolicy.none()).build();
		Flux<Integer> source = Flux.defer(() -> {
			this.subscriptions.incrementAndGet();
			return Flux.range(0, 10);
		});
		StepVerifier.create(source.transformDeferred(RetryOperator.of(noDelay)).take(1))
			.expectNext(0)
			.verifyComplete();
		assertThat(this.subscriptions).hasValue(1);
		assertThat(noDelay.getMetrics().getAttempts()).isEqualTo(1);
		assertThat(noDelay.getMetrics().getRecentEvents()).isEmpty();
	}

	@Test
	void cancellingInOnSubscribeNeverSubscribesTheSource() {
		StepVerifier.create(Mono.defer(() -> {
			this.subscriptions.incrementAndGet();
			return Mono.just("ok");
		}).transformDeferred(RetryOperator.of(this.template))).thenCancel().verify();
		assertThat(this.subscriptions).hasValue(0);
		assertThat(this.template.getMetrics().getAttempts()).isZero();
	}

	@Test
	void aCancelledSubscriptionGetsNoSignalAfterwards() {
		AtomicInteger signals = new AtomicInteger();
		Mono<String> failing = Mono.defer(() -> (this.subscriptions.incrementAndGet() == 1)
				? Mono.error(new IOException("down")) : Mono.just("late"));
		Disposable subscription = failing.transformDeferred(RetryOperator.of(this.template))
			.subscribe(value -> signals.incrementAndGet(), failure -> signals.incrementAndGet(), signals::incrementAndGet);
		subscription.dispose();
		this.time.advance(Duration.ofMinutes(1));
		assertThat(signals).hasValue(0);
		assertThat(this.subscriptions).hasValue(1);
	}

}
