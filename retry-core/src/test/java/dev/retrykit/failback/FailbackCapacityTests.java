package dev.retrykit.failback;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

import dev.retrykit.RetryConfig;
import dev.retrykit.RetryRegistry;
import dev.retrykit.VirtualTime;
import dev.retrykit.backoff.BackoffPolicy;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FailbackCapacityTests {

	private final VirtualTime time = new VirtualTime();

	private final RetryRegistry registry = RetryRegistry.builder().virtualTime(this.time)
		.instance("audit", null, config -> config.maxAttempts(5).backoff(BackoffPolicy.fixed(Duration.ofSeconds(1)))
			.failbackCapacity(2))
		.build();

	private final FailbackExecutor failback = this.registry.failback("audit");

	private static Runnable failing(AtomicInteger runs) {
		return () -> {
			runs.incrementAndGet();
			throw new UncheckedIOException(new IOException("down"));
		};
	}

	@Test
	void theDefaultCapacityIsTenThousandAndLessThanOneIsRefused() {
		assertThat(RetryConfig.defaults().getFailbackCapacity()).isEqualTo(10_000);
		assertThatIllegalArgumentException().isThrownBy(() -> RetryConfig.builder().failbackCapacity(0))
			.withMessage("Invalid failbackCapacity (0): must be 1 or greater");
	}

	@Test
	void aNewKeyBeyondTheCapacityIsRefusedNotRunAndCounted() {
		AtomicInteger runs = new AtomicInteger();
		this.failback.submit("a", failing(runs));
		this.failback.submit("b", failing(runs));
		assertThat(this.failback.pendingCount()).isEqualTo(2);
		assertThatThrownBy(() -> this.failback.submit("c", failing(runs)))
			.isInstanceOf(RejectedExecutionException.class)
			.hasMessage("Failback executor 'audit' is full: 2 tasks are pending, its capacity "
					+ "(retry.instances.audit.failback.capacity, or RetryConfigBuilder.failbackCapacity) is 2; "
					+ "task 'c' was not run");
		assertThat(runs).hasValue(2);
		assertThat(this.failback.rejectedCount()).isEqualTo(1);
		assertThat(this.failback.pendingTasks()).extracting(FailbackTask::key).containsExactly("a", "b");
	}

	@Test
	void aKeyThatIsAlreadyPendingIsStillAcceptedWhenFullAndReplacesItsTask() {
		AtomicInteger runs = new AtomicInteger();
		this.failback.submit("a", failing(runs));
		this.failback.submit("b", failing(runs));
		assertThat(this.failback.submit("a", failing(runs))).isFalse();
		assertThat(runs).hasValue(3);
		assertThat(this.failback.pendingCount()).isEqualTo(2);
		assertThat(this.failback.replacedCount()).isEqualTo(1);
		assertThat(this.failback.rejectedCount()).isZero();
	}

	@Test
	void aSlotFreedByASuccessfulRetryTakesANewKeyAgain() {
		AtomicInteger runs = new AtomicInteger();
		AtomicInteger flaky = new AtomicInteger();
		this.failback.submit("a", failing(runs));
		this.failback.submit("b", () -> {
			if (flaky.incrementAndGet() == 1) {
				throw new UncheckedIOException(new IOException("down once"));
			}
		});
		this.time.advance(Duration.ofSeconds(1));
		assertThat(this.failback.pendingCount()).isEqualTo(1);
		assertThat(this.failback.submit("c", () -> { })).isTrue();
		assertThat(this.failback.rejectedCount()).isZero();
	}

	@Test
	void aCheckedSubmitNeverQueuesSoTheCapacityDoesNotApply() {
		AtomicInteger runs = new AtomicInteger();
		this.failback.submit("a", failing(runs));
		this.failback.submit("b", failing(runs));
		assertThat(this.failback.submit("c", () -> { }, true)).isTrue();
		assertThat(this.failback.rejectedCount()).isZero();
	}

}
