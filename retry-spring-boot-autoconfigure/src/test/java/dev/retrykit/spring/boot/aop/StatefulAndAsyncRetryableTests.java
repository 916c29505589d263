package dev.retrykit.spring.boot.aop;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;

import dev.retrykit.ExhaustedRetryException;
import dev.retrykit.RetryTemplate;
import dev.retrykit.context.RetryContext;
import dev.retrykit.VirtualTime;
import dev.retrykit.annotation.Recover;
import dev.retrykit.annotation.Retryable;
import dev.retrykit.spring.boot.autoconfigure.RetryAutoConfiguration;
import dev.retrykit.spring.boot.autoconfigure.RetryFailureAnalyzer;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class StatefulAndAsyncRetryableTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, RetryAutoConfiguration.class))
		.withBean(VirtualTime.class, VirtualTime::new)
		.withBean(Counter.class, Counter::new);

	@Test
	void aStatefulCallRethrowsAndTheNextCallWithTheSameKeyContinuesTheCount() {
		this.runner.withBean(Orders.class, Orders::new).run(context -> {
			Orders orders = context.getBean(Orders.class);
			assertThatThrownBy(() -> orders.process("o-1", 1)).isInstanceOf(IOException.class);
			assertThatThrownBy(() -> orders.process("o-1", 2)).isInstanceOf(IOException.class);
			assertThatThrownBy(() -> orders.process("o-2", 3)).isInstanceOf(IOException.class);
			assertThatThrownBy(() -> orders.process("o-1", 4)).isInstanceOf(ExhaustedRetryException.class)
				.hasCauseInstanceOf(IOException.class);
			assertThat(context.getBean(Counter.class).retryCounts).containsExactly(0, 1, 0);
		});
	}

	@Test
	void anExhaustedStatefulCallRecoversWhenItHasARecoverMethod() {
		this.runner.withBean(Orders.class, Orders::new).run(context -> {
			Orders orders = context.getBean(Orders.class);
			assertThatThrownBy(() -> orders.recovered("o-1")).isInstanceOf(IOException.class);
			assertThatThrownBy(() -> orders.recovered("o-1")).isInstanceOf(IOException.class);
			assertThat(orders.recovered("o-1")).isEqualTo("recovered o-1");
		});
	}

	@Test
	void theInstanceStatefulPropertyMakesItsMethodsStateful() {
		this.runner.withBean(Orders.class, Orders::new)
			.withPropertyValues("retry.instances.orders.stateful=true", "retry.instances.orders.max-attempts=2")
			.run(context -> {
				Orders orders = context.getBean(Orders.class);
				assertThatThrownBy(() -> orders.byInstance("a")).isInstanceOf(IOException.class);
				assertThat(context.getBean(Counter.class).calls).hasValue(1);
				assertThatThrownBy(() -> orders.byInstance("a")).isInstanceOf(IOException.class);
				assertThatThrownBy(() -> orders.byInstance("a")).isInstanceOf(ExhaustedRetryException.class);
				assertThat(context.getBean(Counter.class).calls).hasValue(2);
			});
	}

	@Test
	void aCompletableFutureIsRetriedAsynchronouslyReinvokingTheMethod() {
		this.runner.withBean(AsyncClient.class, AsyncClient::new).run(context -> {
			Counter counter = context.getBean(Counter.class);
			counter.failuresLeft.set(2);
			CompletableFuture<String> result = context.getBean(AsyncClient.class).fetch();
			assertThat(result).isNotDone();
			context.getBean(VirtualTime.class).advance(Duration.ofMillis(300));
			assertThat(result).isCompletedWithValue("ok");
			assertThat(counter.calls).hasValue(3);
			assertThat(counter.retryCounts).containsExactly(0, 1, 2);
		});
	}

	@Test
	void anAsyncCallRecoversThroughAnAsyncRecoverMethod() {
		this.runner.withBean(AsyncClient.class, AsyncClient::new).run(context -> {
			context.getBean(Counter.class).failuresLeft.set(10);
			CompletionStage<String> result = context.getBean(AsyncClient.class).stage();
			context.getBean(VirtualTime.class).advance(Duration.ofSeconds(1));
			assertThat(result.toCompletableFuture()).isCompletedWithValue("fallback after down");
		});
	}

	@Test
	void aMonoIsResubscribedPerAttempt() {
		this.runner.withBean(AsyncClient.class, AsyncClient::new).run(context -> {
			Counter counter = context.getBean(Counter.class);
			counter.failuresLeft.set(1);
			Mono<String> mono = context.getBean(AsyncClient.class).mono();
			assertThat(counter.calls).hasValue(0);
			CompletableFuture<String> result = mono.toFuture();
			context.getBean(VirtualTime.class).advance(Duration.ofMillis(100));
			assertThat(result).isCompletedWithValue("mono");
			assertThat(counter.calls).hasValue(2);
		});
	}

	@Test
	void aFluxThatFailsBeforeEmittingIsSubscribedAgainAfterTheBackoff() {
		this.runner.withBean(AsyncClient.class, AsyncClient::new).run(context -> {
			context.getBean(Counter.class).failuresLeft.set(1);
			CompletableFuture<List<Integer>> result = context.getBean(AsyncClient.class).flux().collectList().toFuture();
			assertThat(result).isNotDone();
			context.getBean(VirtualTime.class).advance(Duration.ofMillis(100));
			assertThat(result).isCompletedWithValue(List.of(1, 2, 3));
			assertThat(context.getBean(Counter.class).calls).hasValue(2);
		});
	}

	@Test
	void aStatefulAsyncMethodFailsStartup() {
		this.runner.withBean(StatefulAsync.class, StatefulAsync::new)
			.run(context -> assertThat(new RetryFailureAnalyzer().analyze(context.getStartupFailure()).getDescription())
				.contains("StatefulAsync.fetch()", "stateful retry needs a synchronous method"));
	}

	public static class Counter {

		final AtomicInteger calls = new AtomicInteger();

		final AtomicInteger failuresLeft = new AtomicInteger();

		final List<Integer> retryCounts = new java.util.concurrent.CopyOnWriteArrayList<>();

		boolean fail() {
			this.calls.incrementAndGet();
			RetryContext context = RetryTemplate.currentContext();
			if (context != null) {
				this.retryCounts.add(context.getRetryCount());
			}
			return this.failuresLeft.getAndDecrement() > 0;
		}

	}

	public static class Orders {

		@Autowired
		Counter counter;

		@Retryable(stateful = true, key = "#orderId", maxAttempts = 2)
		public void process(String orderId, int call) throws IOException {
			this.counter.retryCounts.add(RetryTemplate.currentContext().getRetryCount());
			throw new IOException("down " + call);
		}

		@Retryable(stateful = true, maxAttempts = 2)
		public String recovered(String orderId) throws IOException {
			throw new IOException("down");
		}

		@Recover
		public String recover(String orderId) {
			return "recovered " + orderId;
		}

		@Retryable("orders")
		public void byInstance(String orderId) throws IOException {
			this.counter.calls.incrementAndGet();
			throw new IOException("down");
		}

	}

	public static class AsyncClient {

		@Autowired
		Counter counter;

		@Retryable
		public CompletableFuture<String> fetch() {
			return this.counter.fail() ? CompletableFuture.failedFuture(new IOException("down"))
					: CompletableFuture.completedFuture("ok");
		}

		@Retryable(recover = "fallback")
		public CompletionStage<String> stage() {
			this.counter.fail();
			throw new IllegalStateException("down");
		}

		@Recover
		public CompletionStage<String> fallback(IllegalStateException failure) {
			return CompletableFuture.completedFuture("fallback after " + failure.getMessage());
		}

		@Retryable
		public Mono<String> mono() {
			return Mono.defer(() -> this.counter.fail() ? Mono.error(new IOException("down")) : Mono.just("mono"));
		}

		@Retryable
		public Flux<Integer> flux() {
			return Flux.defer(() -> this.counter.fail() ? Flux.error(new IOException("down")) : Flux.just(1, 2, 3));
		}

	}

	public static class StatefulAsync {

		@Retryable(stateful = true)
		public CompletableFuture<String> fetch() {
			return CompletableFuture.completedFuture("x");
		}

	}

}
