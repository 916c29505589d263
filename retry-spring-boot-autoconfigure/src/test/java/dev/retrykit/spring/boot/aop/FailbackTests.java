package dev.retrykit.spring.boot.aop;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

import dev.retrykit.RetryRegistry;
import dev.retrykit.VirtualTime;
import dev.retrykit.annotation.Failback;
import dev.retrykit.annotation.Retryable;
import dev.retrykit.failback.FailbackExecutor;
import dev.retrykit.failback.FailbackListener;
import dev.retrykit.failback.FailbackTask;
import dev.retrykit.spring.boot.autoconfigure.RetryAutoConfiguration;
import dev.retrykit.spring.boot.autoconfigure.RetryFailureAnalyzer;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class FailbackTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, RetryAutoConfiguration.class))
		.withBean(VirtualTime.class, VirtualTime::new)
		.withBean(Sent.class, Sent::new);

	@Test
	void aFailingCallReturnsAtOnceAndIsRetriedInTheBackground() {
		this.runner.withBean(Notifier.class, Notifier::new)
			.withPropertyValues("retry.instances.notify.backoff.type=fixed", "retry.instances.notify.backoff.delay=1s",
					"retry.instances.notify.max-attempts=5")
			.run(context -> {
				Sent sent = context.getBean(Sent.class);
				sent.failuresLeft.set(2);
				context.getBean(Notifier.class).send("order-1");
				FailbackExecutor failback = context.getBean(RetryRegistry.class).failback("notify");
				assertThat(sent.attempts).hasValue(1);
				assertThat(failback.pendingCount()).isEqualTo(1);
				context.getBean(VirtualTime.class).advance(Duration.ofSeconds(5));
				assertThat(sent.attempts).hasValue(3);
				assertThat(sent.delivered).containsExactly("order-1");
				assertThat(failback.pendingCount()).isZero();
			});
	}

	@Test
	void aNewFailureForTheSameKeyReplacesThePendingRetry() {
		this.runner.withBean(Notifier.class, Notifier::new).run(context -> {
			context.getBean(Sent.class).failuresLeft.set(100);
			Notifier notifier = context.getBean(Notifier.class);
			notifier.send("order-1");
			notifier.send("order-1");
			notifier.send("order-2");
			FailbackExecutor failback = context.getBean(RetryRegistry.class).failback("notify");
			assertThat(failback.pendingCount()).isEqualTo(2);
			assertThat(failback.replacedCount()).isEqualTo(1);
		});
	}

	@Test
	void aCheckedFailureIsReportedAsItselfNotWrapped() {
		this.runner.withBean(Notifier.class, Notifier::new)
			.withPropertyValues("retry.instances.notify.backoff.type=fixed", "retry.instances.notify.backoff.delay=1s",
					"retry.instances.notify.max-attempts=2", "retry.instances.notify.retry-on=java.io.IOException")
			.run(context -> {
				context.getBean(Sent.class).failuresLeft.set(100);
				RetryRegistry registry = context.getBean(RetryRegistry.class);
				FailbackExecutor failback = registry.failback("notify");
				List<Throwable> exhausted = new CopyOnWriteArrayList<>();
				failback.addListener(new FailbackListener() {
					@Override
					public void onExhausted(String name, FailbackTask task, Throwable lastFailure) {
						exhausted.add(lastFailure);
					}
				});
				context.getBean(Notifier.class).send("order-1");
				assertThat(failback.pendingTasks()).singleElement()
					.extracting(FailbackTask::lastErrorType)
					.isEqualTo(IOException.class.getName());

				context.getBean(VirtualTime.class).advance(Duration.ofSeconds(5));

				assertThat(exhausted).singleElement().isExactlyInstanceOf(IOException.class);
				assertThat(failback.exhaustedTasks()).singleElement()
					.extracting(FailbackTask::lastErrorType)
					.isEqualTo(IOException.class.getName());
				assertThat(registry.template("notify").getMetrics().getRecentEvents()).isNotEmpty()
					.allSatisfy((event) -> assertThat(event.exceptionType()).isEqualTo(IOException.class.getName()));
			});
	}

	@Test
	void aCallRefusedBecauseTheExecutorIsFullThrowsToTheCallerAndDoesNotRun() {
		this.runner.withBean(Notifier.class, Notifier::new)
			.withPropertyValues("retry.instances.notify.failback.capacity=1")
			.run(context -> {
				Sent sent = context.getBean(Sent.class);
				sent.failuresLeft.set(100);
				Notifier notifier = context.getBean(Notifier.class);
				notifier.send("order-1");
				assertThatExceptionOfType(RejectedExecutionException.class).isThrownBy(() -> notifier.send("order-2"))
					.withMessageContaining("'notify'")
					.withMessageContaining("retry.instances.notify.failback.capacity")
					.withMessageContaining("is 1");
				assertThat(sent.attempts).hasValue(1);
				FailbackExecutor failback = context.getBean(RetryRegistry.class).failback("notify");
				assertThat(failback.rejectedCount()).isEqualTo(1);
				// The pending key is still accepted: its new call replaces the pending retry.
				notifier.send("order-1");
				assertThat(sent.attempts).hasValue(2);
				assertThat(failback.replacedCount()).isEqualTo(1);
			});
	}

	@Test
	void aFailbackCapacityBelowOneFailsStartupNamingTheProperty() {
		this.runner.withPropertyValues("retry.instances.notify.failback.capacity=0")
			.run(context -> assertThat(new RetryFailureAnalyzer().analyze(context.getStartupFailure()).getDescription())
				.contains("'retry.instances.notify.failback.capacity'", "'0'", "must be 1 or greater"));
	}

	@Test
	void aFailbackMethodThatReturnsAValueFailsStartup() {
		this.runner.withBean(ReturningFailback.class, ReturningFailback::new)
			.run(context -> assertThat(new RetryFailureAnalyzer().analyze(context.getStartupFailure()).getDescription())
				.contains("Invalid @Failback method", "ReturningFailback.send()", "it returns String"));
	}

	@Test
	void failbackAndRetryableOnOneMethodFailStartup() {
		this.runner.withBean(BothAnnotations.class, BothAnnotations::new)
			.run(context -> assertThat(new RetryFailureAnalyzer().analyze(context.getStartupFailure()).getDescription())
				.contains("BothAnnotations.send()", "also annotated with @Retryable"));
	}

	public static class Sent {

		final AtomicInteger attempts = new AtomicInteger();

		final AtomicInteger failuresLeft = new AtomicInteger();

		final List<String> delivered = new CopyOnWriteArrayList<>();

	}

	public static class Notifier {

		@Autowired
		Sent sent;

		@Failback(value = "notify", key = "#orderId")
		public void send(String orderId) throws IOException {
			this.sent.attempts.incrementAndGet();
			if (this.sent.failuresLeft.getAndDecrement() > 0) {
				throw new IOException("down");
			}
			this.sent.delivered.add(orderId);
		}

	}

	public static class ReturningFailback {

		@Failback("notify")
		public String send() {
			return "x";
		}

	}

	public static class BothAnnotations {

		@Retryable
		@Failback("notify")
		public void send() {
		}

	}

}
