package dev.retrykit.spring.boot.actuate.endpoint;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.stream.IntStream;

import dev.retrykit.RetryRegistry;
import dev.retrykit.VirtualTime;
import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.failback.FailbackExecutor;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.endpoint.Show;

import static dev.retrykit.spring.boot.actuate.endpoint.TestRetryRegistries.SECRET;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.tuple;

/**
 * The {@code failback} part of the endpoint, with real failback executors driven in virtual time:
 * {@code audit} retries a task up to 3 attempts, 1s apart.
 */
class RetriesEndpointFailbackTests {

	private final VirtualTime time = new VirtualTime();

	private final RetryRegistry registry = RetryRegistry.builder().virtualTime(this.time)
		.instance("audit", null, (config) -> config.maxAttempts(3).backoff(BackoffPolicy.fixed(Duration.ofSeconds(1))))
		.instance("quiet", null, (config) -> config.maxAttempts(3))
		.build();

	private final RetriesEndpoint endpoint = new RetriesEndpoint(this.registry, Show.NEVER, this.time);

	@Test
	void leavesFailbackOutUntilTheApplicationCreatesTheExecutor() {
		assertThat(this.endpoint.retries().instances().get("audit").failback()).isNull();
		assertThat(this.endpoint.retry("audit").failback()).isNull();
		assertThat(this.registry.findFailback("audit")).isEmpty();

		this.registry.failback("audit");

		assertThat(this.endpoint.retries().instances().get("audit").failback())
			.isEqualTo(new RetryInstanceDescriptor.Failback(0, 0, 0, 10_000, null, null));
		assertThat(this.endpoint.retries().instances().get("quiet").failback()).isNull();
		assertThat(this.registry.findFailback("quiet")).isEmpty();
	}

	@Test
	void summaryCountsPendingAndExhaustedTasks() {
		FailbackExecutor failback = this.registry.failback("audit");
		failback.submit("a", failing("down"));
		failback.submit("b", failing("down"));
		assertThat(this.endpoint.retries().instances().get("audit").failback())
			.isEqualTo(new RetryInstanceDescriptor.Failback(2, 0, 0, 10_000, null, null));

		this.time.advance(Duration.ofSeconds(2));
		failback.submit("c", failing("down"));

		assertThat(this.endpoint.retries().instances().get("audit").failback())
			.isEqualTo(new RetryInstanceDescriptor.Failback(1, 2, 0, 10_000, null, null));
	}

	@Test
	void detailListsPendingThenExhaustedTasksWithMaskedKeysAndMessages() {
		FailbackExecutor failback = this.registry.failback("audit");
		failback.submit("order-1 " + SECRET, failing("declined " + SECRET));
		this.time.advance(Duration.ofSeconds(2));
		failback.submit("order-2 " + SECRET, failing("declined " + SECRET));

		RetryInstanceDescriptor.Failback detail = this.endpoint.retry("audit").failback();

		assertThat(detail.pending()).isEqualTo(1);
		assertThat(detail.exhausted()).isEqualTo(1);
		assertThat(detail.tasksOmitted()).isZero();
		assertThat(detail.tasks()).containsExactly(
				new RetryInstanceDescriptor.FailbackTaskEntry("PENDING", "******", 1, UncheckedIOException.class.getName(),
						"******", "2026-01-01T00:00:02Z", "2026-01-01T00:00:03Z"),
				new RetryInstanceDescriptor.FailbackTaskEntry("EXHAUSTED", "******", 3,
						UncheckedIOException.class.getName(), "******", "2026-01-01T00:00:00Z", null));
	}

	@Test
	void showsKeysAndMessagesWhenAllowed() {
		this.registry.failback("audit").submit("order-1 " + SECRET, failing("declined " + SECRET));

		RetryInstanceDescriptor.FailbackTaskEntry task = new RetriesEndpoint(this.registry, Show.ALWAYS, this.time)
			.retry("audit").failback().tasks().get(0);

		assertThat(task.key()).isEqualTo("order-1 " + SECRET);
		assertThat(task.lastErrorMessage()).isEqualTo("declined " + SECRET);
		assertThat(this.endpoint.retry("audit", true).failback().tasks().get(0).key()).isEqualTo("order-1 " + SECRET);
		assertThat(this.endpoint.retry("audit", false).failback().tasks().get(0).key()).isEqualTo("******");
	}

	@Test
	void leavesOutAMessageTheFailureDidNotHave() {
		this.registry.failback("audit").submit("k", () -> {
			throw new IllegalStateException();
		});

		RetryInstanceDescriptor.FailbackTaskEntry task = this.endpoint.retry("audit").failback().tasks().get(0);

		assertThat(task.lastErrorType()).isEqualTo(IllegalStateException.class.getName());
		assertThat(task.lastErrorMessage()).isNull();
	}

	@Test
	void doesNotListATaskThatSucceededInTheBackground() {
		FailbackExecutor failback = this.registry.failback("audit");
		int[] runs = { 0 };
		failback.submit("flaky", () -> {
			if (runs[0]++ == 0) {
				throw new UncheckedIOException(new IOException("once"));
			}
		});
		assertThat(this.endpoint.retry("audit").failback().tasks()).hasSize(1);

		this.time.advance(Duration.ofSeconds(1));

		assertThat(this.endpoint.retry("audit").failback())
			.isEqualTo(new RetryInstanceDescriptor.Failback(0, 0, 0, 10_000, List.of(), 0L));
	}

	@Test
	void boundsTheTaskListKeepingPendingTasksAndTheMostRecentExhaustedOnes() {
		FailbackExecutor failback = this.registry.failback("audit");
		for (int i = 0; i < 130; i++) {
			failback.submit("old-" + i, failing("down"));
		}
		this.time.advance(Duration.ofSeconds(2));
		for (int i = 0; i < 20; i++) {
			failback.submit("new-" + i, failing("down"));
		}
		// 130 exhausted: the executor keeps the newest 100 (old-30 to old-129) and counts the 30 dropped.
		assertThat(failback.exhaustedDropped()).isEqualTo(30);

		RetryInstanceDescriptor.Failback detail = new RetriesEndpoint(this.registry, Show.ALWAYS, this.time)
			.retry("audit").failback();

		assertThat(detail.pending()).isEqualTo(20);
		assertThat(detail.exhausted()).isEqualTo(130);
		assertThat(detail.tasks()).hasSize(100);
		assertThat(detail.tasksOmitted()).isEqualTo(20 + 130 - 100);
		assertThat(detail.tasks().subList(0, 20)).allSatisfy((task) -> {
			assertThat(task.state()).isEqualTo("PENDING");
			assertThat(task.key()).startsWith("new-");
		});
		assertThat(detail.tasks().subList(20, 100)).extracting(RetryInstanceDescriptor.FailbackTaskEntry::state,
				RetryInstanceDescriptor.FailbackTaskEntry::key)
			.containsExactlyElementsOf(IntStream.range(50, 130)
				.mapToObj((i) -> tuple("EXHAUSTED", "old-" + i)).toList());
	}

	@Test
	void showsTheCapacityAndCountsTheSubmitsItRefused() {
		RetryRegistry small = RetryRegistry.builder().virtualTime(this.time)
			.instance("audit", null, (config) -> config.maxAttempts(3).failbackCapacity(1))
			.build();
		FailbackExecutor failback = small.failback("audit");
		failback.submit("a", failing("down"));
		assertThatExceptionOfType(RejectedExecutionException.class)
			.isThrownBy(() -> failback.submit("b", failing("down")));

		RetriesEndpoint endpoint = new RetriesEndpoint(small, Show.NEVER, this.time);
		assertThat(endpoint.retries().instances().get("audit").failback())
			.isEqualTo(new RetryInstanceDescriptor.Failback(1, 0, 1, 1, null, null));
		assertThat(endpoint.retry("audit").failback().rejected()).isEqualTo(1);
	}

	@Test
	void keepsShowingAnExecutorAfterShutdown() {
		FailbackExecutor failback = this.registry.failback("audit");
		failback.submit("a", failing("down"));

		assertThat(this.registry.shutdownFailbacks()).containsOnlyKeys("audit");

		assertThat(this.endpoint.retry("audit").failback())
			.isEqualTo(new RetryInstanceDescriptor.Failback(0, 0, 0, 10_000, List.of(), 0L));
	}

	private static Runnable failing(String message) {
		return () -> {
			throw new UncheckedIOException(message, new IOException());
		};
	}

}
