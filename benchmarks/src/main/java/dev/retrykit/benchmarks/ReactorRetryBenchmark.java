package dev.retrykit.benchmarks;

import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

import dev.retrykit.RetryTemplate;
import dev.retrykit.scheduler.TimingWheelScheduler;
import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.reactor.RetryOperator;
import dev.retrykit.spring.boot.autoconfigure.RetryAutoConfiguration;
import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;
import reactor.util.retry.Retry;

import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Reactor: one subscription to a successful {@code Mono} (a cold {@code Mono.fromSupplier} returning a
 * field, as a WebClient exchange is cold) under retry, 3 attempts and no delay in each library: the
 * plain {@code Mono} (floor), Reactor's own {@code retryWhen(Retry.max(2))}, retrykit's
 * {@link RetryOperator}, Resilience4j's reactor {@code RetryOperator}, and retrykit's {@code @Retryable}
 * on a bean method returning the {@code Mono}.
 *
 * <p>The first four subscribe to a publisher assembled once in the setup, so they measure the
 * subscription. A {@code @Retryable} call also assembles (the proxy calls the method and wraps its
 * {@code Mono} per call), so its peers are the {@code ...AssembledPerCall} benchmarks, which apply
 * {@code retryWhen} or the operator to the {@code Mono} per call, as
 * {@code service.find(id).retryWhen(Retry.max(2))} does. Every benchmark subscribes one reused
 * {@link ValueSubscriber} per thread, which requests everything and keeps the value for the blackhole.
 *
 * <p>The setup proves that each contender retries a {@code Mono} that fails twice to success on attempt
 * 3, without delay.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(2)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
public class ReactorRetryBenchmark {

	@Benchmark
	public void baselineMono(Contenders contenders, ValueSubscriber subscriber, Blackhole bh) {
		bh.consume(subscriber.valueOf(contenders.source));
	}

	@Benchmark
	public void reactorRetryWhen(Contenders contenders, ValueSubscriber subscriber, Blackhole bh) {
		bh.consume(subscriber.valueOf(contenders.retryWhen));
	}

	@Benchmark
	public void retrykitOperator(Contenders contenders, ValueSubscriber subscriber, Blackhole bh) {
		bh.consume(subscriber.valueOf(contenders.retrykit));
	}

	@Benchmark
	public void resilience4jOperator(Contenders contenders, ValueSubscriber subscriber, Blackhole bh) {
		bh.consume(subscriber.valueOf(contenders.resilience4j));
	}

	@Benchmark
	public void reactorRetryWhenAssembledPerCall(Contenders contenders, ValueSubscriber subscriber, Blackhole bh) {
		bh.consume(subscriber.valueOf(contenders.source.retryWhen(contenders.retrySpec)));
	}

	@Benchmark
	public void retrykitOperatorAssembledPerCall(Contenders contenders, ValueSubscriber subscriber, Blackhole bh) {
		bh.consume(subscriber.valueOf(contenders.source.transform(contenders.retrykitOperator)));
	}

	@Benchmark
	public void retrykitRetryable(RetrykitAop aop, ValueSubscriber subscriber, Blackhole bh) {
		bh.consume(subscriber.valueOf(aop.bean.find()));
	}

	/** The source and each library's retried version of it, shared by all threads. */
	@State(Scope.Benchmark)
	public static class Contenders {

		/** Not final, so the JIT cannot fold the call into a constant. */
		String payload = "ok";

		final Mono<String> source = Mono.fromSupplier(() -> this.payload);

		final Retry retrySpec = Retry.max(PeerRetries.MAX_ATTEMPTS - 1);

		/** Never used by a zero-delay call; manual, so it starts no thread. */
		final TimingWheelScheduler retrykitScheduler = TimingWheelScheduler.builder().manual().build();

		final RetryOperator<String> retrykitOperator = RetryOperator.of(RetryTemplate.builder()
			.name("bench-reactor")
			.maxAttempts(PeerRetries.MAX_ATTEMPTS)
			.backoff(BackoffPolicy.none())
			.scheduler(this.retrykitScheduler)
			.build());

		final UnaryOperator<Publisher<String>> resilience4jOperator = io.github.resilience4j.reactor.retry.RetryOperator
			.of(PeerRetries.resilience4jRetry());

		final Mono<String> retryWhen = this.source.retryWhen(this.retrySpec);

		final Mono<String> retrykit = this.source.transform(this.retrykitOperator);

		final Mono<String> resilience4j = this.source.transform(this.resilience4jOperator);

		@Setup
		public void checkEveryLibraryRetries() {
			requireThreeSubscriptions("Reactor retryWhen", mono -> mono.retryWhen(this.retrySpec));
			requireThreeSubscriptions("retrykit RetryOperator", mono -> mono.transform(this.retrykitOperator));
			requireThreeSubscriptions("Resilience4j RetryOperator", mono -> mono.transform(this.resilience4jOperator));
			if (this.retrykitScheduler.pendingCount() != 0 || this.retrykitScheduler.firedCount() != 0) {
				throw new IllegalStateException("retrykit scheduled a zero-delay retry: " + this.retrykitScheduler);
			}
		}

	}

	/** retrykit's {@code @Retryable} on a method returning the {@code Mono}, from its auto-configuration. */
	@State(Scope.Benchmark)
	public static class RetrykitAop {

		AnnotationConfigApplicationContext context;

		ReactiveService bean;

		@Setup
		public void start() {
			this.context = AopBenchmark.startContext(Map.of("retry.instances." + AopBenchmark.INSTANCE + ".max-attempts", "3",
					"retry.instances." + AopBenchmark.INSTANCE + ".backoff.type", "none"), RetrykitConfig.class);
			this.bean = this.context.getBean(ReactiveService.class);
			if (!AopUtils.isCglibProxy(this.bean)) {
				throw new IllegalStateException("retrykit @Retryable: not a CGLIB proxy: " + this.bean.getClass());
			}
			requireThreeSubscriptions("retrykit @Retryable", this.bean::retried);
		}

		@TearDown
		public void stop() {
			this.context.close();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ AopAutoConfiguration.class, RetryAutoConfiguration.class })
	static class RetrykitConfig {

		@Bean
		ReactiveService reactiveService() {
			return new ReactiveService();
		}

	}

	public static class ReactiveService {

		final Mono<String> source = Mono.fromSupplier(this::payload);

		String payload = "ok";

		String payload() {
			return this.payload;
		}

		@dev.retrykit.annotation.Retryable(AopBenchmark.INSTANCE)
		public Mono<String> find() {
			return this.source;
		}

		/** The self-check: the same annotation on a method that returns the given {@code Mono}. */
		@dev.retrykit.annotation.Retryable(AopBenchmark.INSTANCE)
		public Mono<String> retried(Mono<String> mono) {
			return mono;
		}

	}

	/**
	 * Fails the trial unless {@code retry} makes a {@code Mono} that fails on its first two subscriptions
	 * succeed on the third, at once.
	 */
	static void requireThreeSubscriptions(String library, UnaryOperator<Mono<String>> retry) {
		AtomicInteger subscriptions = new AtomicInteger();
		IOException failure = new IOException("simulated");
		Mono<String> flaky = Mono.defer(() -> (subscriptions.incrementAndGet() < 3) ? Mono.error(failure)
				: Mono.just("third"));
		String result = retry.apply(flaky).block(Duration.ofSeconds(1));
		if (!"third".equals(result) || subscriptions.get() != 3) {
			throw new IllegalStateException(library + " did not retry to success on the third subscription: result "
					+ result + ", subscriptions " + subscriptions.get());
		}
	}

	/**
	 * Subscribes to a {@code Mono} that completes at once and returns its value; one per thread, reused
	 * for every operation so that no benchmark measures its allocation.
	 */
	@State(Scope.Thread)
	public static class ValueSubscriber implements CoreSubscriber<String> {

		private @Nullable String value;

		private boolean completed;

		@Nullable String valueOf(Mono<String> mono) {
			this.value = null;
			this.completed = false;
			mono.subscribe(this);
			if (!this.completed) {
				throw new IllegalStateException("The Mono did not complete at once: " + mono);
			}
			return this.value;
		}

		@Override
		public void onSubscribe(Subscription s) {
			s.request(Long.MAX_VALUE);
		}

		@Override
		public void onNext(String next) {
			this.value = next;
		}

		@Override
		public void onError(Throwable failure) {
			throw new IllegalStateException("The Mono failed", failure);
		}

		@Override
		public void onComplete() {
			this.completed = true;
		}

	}

}
