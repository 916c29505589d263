package dev.retrykit.spring.boot.aop;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import dev.retrykit.VirtualTime;
import dev.retrykit.annotation.Recover;
import dev.retrykit.annotation.Retryable;
import dev.retrykit.spring.boot.autoconfigure.RetryAutoConfiguration;
import dev.retrykit.spring.boot.autoconfigure.RetryFailureAnalyzer;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;
import reactor.util.context.Context;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

class ReactiveRetryableTests {

	/** Bounds a verification that would otherwise wait for ever if elements never came (no real waiting). */
	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, RetryAutoConfiguration.class))
		.withPropertyValues("retry.defaults.backoff.type=fixed", "retry.defaults.backoff.delay=100ms")
		.withBean(VirtualTime.class, VirtualTime::new)
		.withBean(Calls.class, Calls::new)
		.withBean(ReactiveClient.class, ReactiveClient::new);

	@Test
	void theSubscribersContextReachesEveryAttemptOfARetryableMono() {
		this.runner.run(context -> {
			ReactiveClient client = context.getBean(ReactiveClient.class);
			Calls calls = context.getBean(Calls.class);
			calls.failuresLeft.set(1);
			StepVerifier.create(client.whoAmI().contextWrite(Context.of("user", "alice")))
				.then(() -> context.getBean(VirtualTime.class).advance(Duration.ofMillis(100)))
				.expectNext("user=alice")
				.expectComplete()
				.verify(TIMEOUT);
			assertThat(calls.seen).containsExactly("user=alice", "user=alice");
		});
	}

	@Test
	void aRetryableFluxStreamsItsElementsBeforeItCompletes() {
		this.runner.run(context -> StepVerifier.create(context.getBean(ReactiveClient.class).endless())
			.expectNext(1, 2)
			.thenCancel()
			.verify(TIMEOUT));
	}

	@Test
	void aRetryableFluxReEmitsTheElementsOfAFailedAttempt() {
		this.runner.run(context -> {
			ReactiveClient client = context.getBean(ReactiveClient.class);
			Calls calls = context.getBean(Calls.class);
			calls.failuresLeft.set(1);
			StepVerifier.create(client.flaky())
				.expectNext(1)
				.then(() -> context.getBean(VirtualTime.class).advance(Duration.ofMillis(100)))
				.expectNext(1, 2, 3)
				.expectComplete()
				.verify(TIMEOUT);
		});
	}

	@Test
	void aRecoverMethodReturningMonoIsSubscribedWithTheSubscribersContext() {
		this.runner.run(context -> {
			ReactiveClient client = context.getBean(ReactiveClient.class);
			Calls calls = context.getBean(Calls.class);
			calls.failuresLeft.set(10);
			StepVerifier.create(client.price("sku-1").contextWrite(Context.of("user", "alice")))
				.then(() -> context.getBean(VirtualTime.class).advance(Duration.ofMillis(100)))
				.expectNext("cached price of sku-1 for alice after down")
				.expectComplete()
				.verify(TIMEOUT);
			assertThat(calls.calls).hasValue(2);
		});
	}

	@Test
	void aRecoverMethodReturningFluxStreamsItsElements() {
		this.runner.run(context -> {
			ReactiveClient client = context.getBean(ReactiveClient.class);
			Calls calls = context.getBean(Calls.class);
			calls.failuresLeft.set(10);
			StepVerifier.create(client.events())
				.then(() -> context.getBean(VirtualTime.class).advance(Duration.ofMillis(100)))
				.expectNext(-1, -2)
				.thenCancel()
				.verify(TIMEOUT);
		});
	}

	@Test
	void cancellingARetryableMonoCancelsItsPendingRetry() {
		this.runner.run(context -> {
			ReactiveClient client = context.getBean(ReactiveClient.class);
			Calls calls = context.getBean(Calls.class);
			calls.failuresLeft.set(10);
			Disposable subscription = client.whoAmI().subscribe();
			assertThat(calls.calls).hasValue(1);
			subscription.dispose();
			context.getBean(VirtualTime.class).advance(Duration.ofMinutes(1));
			assertThat(calls.calls).hasValue(1);
			assertThat(context.getBean(VirtualTime.class).pendingTasks()).isZero();
		});
	}

	@Test
	void aStatefulMonoMethodFailsStartup() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, RetryAutoConfiguration.class))
			.withBean(StatefulReactive.class, StatefulReactive::new)
			.run(context -> assertThat(new RetryFailureAnalyzer().analyze(context.getStartupFailure()).getDescription())
				.contains("StatefulReactive.fetch()", "stateful retry needs a synchronous method", "Mono"));
	}

	public static class Calls {

		final AtomicInteger calls = new AtomicInteger();

		final AtomicInteger failuresLeft = new AtomicInteger();

		final List<String> seen = new CopyOnWriteArrayList<>();

		boolean fail() {
			this.calls.incrementAndGet();
			return this.failuresLeft.getAndDecrement() > 0;
		}

	}

	public static class ReactiveClient {

		@Autowired
		Calls state;

		private boolean fail() {
			return this.state.fail();
		}

		@Retryable
		public Mono<String> whoAmI() {
			return Mono.deferContextual(context -> {
				String user = "user=" + context.getOrDefault("user", "<none>");
				this.state.seen.add(user);
				return fail() ? Mono.error(new IOException("down")) : Mono.just(user);
			});
		}

		@Retryable
		public Flux<Integer> endless() {
			return Flux.concat(Flux.just(1, 2), Flux.never());
		}

		@Retryable
		public Flux<Integer> flaky() {
			return Flux.defer(() -> fail() ? Flux.just(1).concatWith(Flux.error(new IOException("down")))
					: Flux.just(1, 2, 3));
		}

		@Retryable(maxAttempts = 2)
		public Mono<String> price(String sku) {
			return Mono.defer(() -> fail() ? Mono.error(new IOException("down")) : Mono.just("live"));
		}

		@Recover
		public Mono<String> cachedPrice(IOException failure, String sku) {
			return Mono.deferContextual(context -> Mono.just("cached price of " + sku + " for "
					+ context.getOrDefault("user", "<none>") + " after " + failure.getMessage()));
		}

		@Retryable(maxAttempts = 2)
		public Flux<Integer> events() {
			return Flux.defer(() -> fail() ? Flux.error(new IOException("down")) : Flux.just(1));
		}

		@Recover
		public Flux<Integer> replayedEvents(IOException failure) {
			return Flux.concat(Flux.just(-1, -2), Flux.never());
		}

	}

	public static class StatefulReactive {

		@Retryable(stateful = true)
		public Mono<String> fetch() {
			return Mono.just("x");
		}

	}

}
