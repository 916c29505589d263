package dev.retrykit.spring.boot.aop;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import dev.retrykit.VirtualTime;
import dev.retrykit.annotation.Retryable;
import dev.retrykit.spring.boot.autoconfigure.RetryAutoConfiguration;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import org.springframework.aop.Advisor;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.Ordered;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Copies of a hedged {@code @Retryable} method that run at the same time each run the whole chain of
 * interceptors inside the retry (as an inner {@code @Transactional} would need): one copy moving the
 * shared invocation's position must not make another skip an interceptor.
 */
class HedgedCopiesChainTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, RetryAutoConfiguration.class))
		.withBean(VirtualTime.class, VirtualTime::new)
		.withBean("counter", Advisor.class, () -> advisor(new CountingInterceptor(), Ordered.LOWEST_PRECEDENCE))
		.withPropertyValues("retry.instances.search.max-attempts=3", "retry.instances.search.hedging.enabled=true",
				"retry.instances.search.hedging.delay=10ms");

	@Test
	void concurrentCopiesOfAnAsyncMethodEachRunEveryInterceptorInsideTheRetry() {
		this.runner.withBean(AsyncSearch.class, AsyncSearch::new)
			.withBean("gate", Advisor.class, () -> advisor(new GateInterceptor(), Ordered.LOWEST_PRECEDENCE - 1))
			.run(context -> {
				AsyncSearch search = context.getBean(AsyncSearch.class);
				GateInterceptor gate = (GateInterceptor) ((DefaultPointcutAdvisor) context.getBean("gate", Advisor.class)).getAdvice();
				CountingInterceptor counter = counter(context.getBean("counter", Advisor.class));
				CompletableFuture<String> result = search.find("q");
				assertThat(search.calls()).hasSize(1);

				// The hedge starts on a thread of its own and is held by the gate, inside the chain.
				gate.holdNext();
				Thread timer = new Thread(() -> context.getBean(VirtualTime.class).advance(Duration.ofMillis(10)));
				timer.start();
				await(gate::holding, "the hedge held inside the chain");
				// Meanwhile the first copy fails: the third copy starts at once, here, and runs to the method.
				search.calls().get(0).completeExceptionally(new IOException("first"));
				assertThat(search.calls()).hasSize(2);
				gate.release();
				await(() -> !timer.isAlive(), "the hedge's return");

				assertThat(search.calls()).hasSize(3);
				assertThat(counter.seen).hasValue(3);
				search.calls().get(2).complete("hedge");
				assertThat(result).isCompletedWithValue("hedge");
			});
	}

	static Advisor advisor(MethodInterceptor interceptor, int order) {
		DefaultPointcutAdvisor advisor = new DefaultPointcutAdvisor(
				new AnnotationMatchingPointcut(null, Retryable.class, true), interceptor);
		advisor.setOrder(order);
		return advisor;
	}

	static CountingInterceptor counter(Advisor advisor) {
		return (CountingInterceptor) advisor.getAdvice();
	}

	static void await(BooleanSupplier condition, String what) {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() - deadline > 0) {
				throw new AssertionError("Timed out waiting for " + what);
			}
			LockSupport.parkNanos(1_000_000);
		}
	}

	/** Holds the next call that passes it until released; lets every other call through. */
	static final class GateInterceptor implements MethodInterceptor {

		private final AtomicInteger toHold = new AtomicInteger();

		private final CompletableFuture<@Nullable Void> released = new CompletableFuture<>();

		private volatile boolean holding;

		void holdNext() {
			this.toHold.set(1);
		}

		boolean holding() {
			return this.holding;
		}

		void release() {
			this.released.complete(null);
		}

		@Override
		public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
			if (this.toHold.compareAndSet(1, 0)) {
				this.holding = true;
				this.released.get(10, TimeUnit.SECONDS);
			}
			return invocation.proceed();
		}

	}

	/** Counts the calls that reach it: every copy should. */
	static final class CountingInterceptor implements MethodInterceptor {

		final AtomicInteger seen = new AtomicInteger();

		@Override
		public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
			this.seen.incrementAndGet();
			return invocation.proceed();
		}

	}

	static class AsyncSearch {

		final List<CompletableFuture<String>> calls = new CopyOnWriteArrayList<>();

		@Retryable("search")
		public CompletableFuture<String> find(String query) {
			CompletableFuture<String> call = new CompletableFuture<>();
			this.calls.add(call);
			return call;
		}

		public List<CompletableFuture<String>> calls() {
			return this.calls;
		}

	}

}
