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

import dev.retrykit.context.RetryContext;
import dev.retrykit.RetryListener;
import dev.retrykit.VirtualTime;
import dev.retrykit.annotation.Failback;
import dev.retrykit.annotation.Retryable;
import dev.retrykit.spring.boot.autoconfigure.RetryAutoConfiguration;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The intercepted invocation travels with each kind of call to its listeners, also to the callbacks of
 * attempts that run on another thread than the caller's: an async retry, a failback retry, a {@code Mono}
 * subscribed to after the method returned.
 */
class MethodListenersCallKindsTests {

	/** The thread that lets time pass, on which the due retries run. */
	private static final String ATTEMPT_THREAD = "retry-timer";

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, RetryAutoConfiguration.class))
		.withBean(VirtualTime.class, VirtualTime::new)
		.withBean("auditListener", Attempts.class, Attempts::new)
		.withBean(Remote.class, Remote::new)
		.withPropertyValues("retry.instances.notify.backoff.type=fixed", "retry.instances.notify.backoff.delay=100ms");

	@Test
	void listenersOfAnAsyncRetryOnAnotherThreadSeeTheInvocation() {
		this.runner.run(context -> {
			CompletableFuture<String> result = context.getBean(Remote.class).later("x");
			advanceOnAnotherThread(context.getBean(VirtualTime.class), Duration.ofSeconds(1));
			await(() -> result.isDone() && context.getBean(Attempts.class).seen.size() == 4);
			assertThat(result).isCompletedWithValue("later x");
			assertThat(context.getBean(Attempts.class).seen).containsExactly(
					"open later[x] on " + Thread.currentThread().getName(),
					"attempt 1 of later[x] on " + Thread.currentThread().getName(),
					"attempt 2 of later[x] on " + ATTEMPT_THREAD, "close later[x] on " + ATTEMPT_THREAD);
		});
	}

	@Test
	void listenersOfAFailbackRetryInTheBackgroundSeeTheInvocation() {
		this.runner.run(context -> {
			Remote remote = context.getBean(Remote.class);
			remote.notifyOrder("order-1");
			advanceOnAnotherThread(context.getBean(VirtualTime.class), Duration.ofMillis(100));
			await(() -> remote.notified() == 2);
			await(() -> context.getBean(Attempts.class).seen.size() == 4);
			assertThat(context.getBean(Attempts.class).seen).containsExactly(
					"open notifyOrder[order-1] on " + Thread.currentThread().getName(),
					"attempt 1 of notifyOrder[order-1] on " + Thread.currentThread().getName(),
					"attempt 2 of notifyOrder[order-1] on " + ATTEMPT_THREAD,
					"close notifyOrder[order-1] on " + ATTEMPT_THREAD);
		});
	}

	@Test
	void aMonoMethodsCallsAreHeardByTheListenersItNamesWithTheInvocation() {
		this.runner.withBean("otherListener", Attempts.class, Attempts::new)
			.withBean(ReactiveRemote.class, ReactiveRemote::new)
			.run(context -> {
			Mono<String> mono = context.getBean(ReactiveRemote.class).reactive("y");
			// The call starts at subscription, after the method returned, here on another thread.
			CompletableFuture<@Nullable String> result = new CompletableFuture<>();
			new Thread(() -> {
				try {
					result.complete(mono.block());
				}
				catch (Throwable ex) {
					result.completeExceptionally(ex);
				}
			}, "subscriber").start();
			// The first attempt failed on the subscriber's thread and its retry waits for the backoff.
			await(() -> context.getBean(VirtualTime.class).untilNextTask() != null);
			advanceOnAnotherThread(context.getBean(VirtualTime.class), Duration.ofSeconds(1));
			assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo("reactive y");
			await(() -> context.getBean("auditListener", Attempts.class).seen.size() == 4);
			assertThat(context.getBean("auditListener", Attempts.class).seen).hasSize(4)
				.allMatch(event -> event.contains(" reactive[y] on "));
			assertThat(context.getBean("otherListener", Attempts.class).seen).isEmpty();
		});
	}

	/** Lets time pass on a thread of its own, so that what falls due (retries) runs there, not on the caller's. */
	private static void advanceOnAnotherThread(VirtualTime time, Duration duration) throws InterruptedException {
		Thread timer = new Thread(() -> time.advance(duration), ATTEMPT_THREAD);
		timer.start();
		timer.join(TimeUnit.SECONDS.toMillis(10));
		assertThat(timer.isAlive()).as("advancing time took more than ten seconds").isFalse();
	}

	/** Polls until the condition holds, at most ten seconds. */
	private static void await(BooleanSupplier condition) {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (!condition.getAsBoolean()) {
			assertThat(System.nanoTime()).as("still waiting after ten seconds").isLessThan(deadline);
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
		}
	}

	/** Records, for each open, attempt and close, the method and arguments it saw and the thread. */
	public static class Attempts implements RetryListener {

		final List<String> seen = new CopyOnWriteArrayList<>();

		@Override
		public boolean open(RetryContext context) {
			record("open", context);
			return true;
		}

		@Override
		public void beforeAttempt(RetryContext context) {
			record("attempt " + (context.getRetryCount() + 1) + " of", context);
		}

		@Override
		public void close(RetryContext context, @Nullable Throwable failure) {
			record("close", context);
		}

		private void record(String event, RetryContext context) {
			MethodInvocation invocation = MethodListeners.invocation(context);
			this.seen.add(event + " " + ((invocation != null) ? invocation.getMethod().getName()
					+ java.util.Arrays.toString(invocation.getArguments()) : "-") + " on " + Thread.currentThread().getName());
		}

	}

	public static class Remote {

		final AtomicInteger calls = new AtomicInteger();

		final AtomicInteger notified = new AtomicInteger();

		@Retryable(listeners = "auditListener")
		public CompletableFuture<String> later(String id) {
			return (this.calls.incrementAndGet() == 1) ? CompletableFuture.failedFuture(new IOException("down"))
					: CompletableFuture.completedFuture("later " + id);
		}

		public int notified() {
			return this.notified.get();
		}

		@Failback(value = "notify", key = "#orderId")
		public void notifyOrder(String orderId) throws IOException {
			if (this.notified.incrementAndGet() == 1) {
				throw new IOException("down");
			}
		}

	}

	public static class ReactiveRemote {

		final AtomicInteger calls = new AtomicInteger();

		@Retryable(listeners = "auditListener")
		public Mono<String> reactive(String id) {
			return Mono.fromCallable(() -> {
				if (this.calls.incrementAndGet() == 1) {
					throw new IOException("down");
				}
				return "reactive " + id;
			});
		}

	}

}
