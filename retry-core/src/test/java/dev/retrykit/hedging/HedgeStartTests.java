package dev.retrykit.hedging;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.retrykit.RetryTemplate;
import dev.retrykit.spi.RetryScheduler;
import dev.retrykit.spi.ScheduledTask;
import dev.retrykit.spi.TimeSource;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Copies that fall due together start independently: the timer's pass runs no supplier, it hands each
 * due copy's start to the scheduler on its own, so a slow start delays no other copy. The scheduler
 * here runs nothing by itself: the test runs its tasks one at a time.
 */
class HedgeStartTests {

	private final Steps steps = new Steps();

	@Test
	void theTimersPassStartsNoCopyItselfAndEachDueCopyStartsOnItsOwn() {
		RetryTemplate template = RetryTemplate.builder().name("search").timeSource(this.steps).scheduler(this.steps)
			.maxAttempts(2).hedging(HedgingConfig.builder().delay(Duration.ofMillis(10)).build()).build();
		Downstream first = new Downstream();
		Downstream second = new Downstream();
		template.executeAsync(first);
		template.executeAsync(second);
		assertThat(this.steps.tasks).hasSize(1);

		this.steps.nanos = Duration.ofMillis(10).toNanos();
		this.steps.run(0);

		assertThat(first.calls()).isEqualTo(1);
		assertThat(second.calls()).isEqualTo(1);
		assertThat(this.steps.tasks).hasSize(2);

		// The start handed over last runs first: the other call's copy does not wait for it, nor it for the other.
		this.steps.run(1);
		assertThat(first.calls() + second.calls()).isEqualTo(3);
		this.steps.run(0);
		assertThat(first.calls()).isEqualTo(2);
		assertThat(second.calls()).isEqualTo(2);
	}

	/** A clock set by hand and a scheduler that keeps its tasks until the test runs them. */
	static final class Steps implements RetryScheduler, TimeSource {

		final List<Runnable> tasks = new ArrayList<>();

		long nanos;

		@Override
		public ScheduledTask schedule(Runnable task, long delay, TimeUnit unit) {
			this.tasks.add(task);
			return new ScheduledTask() {
				@Override
				public boolean cancel() {
					return Steps.this.tasks.remove(task);
				}

				@Override
				public boolean isCancelled() {
					return false;
				}

				@Override
				public boolean isExpired() {
					return false;
				}
			};
		}

		void run(int index) {
			this.tasks.remove(index).run();
		}

		@Override
		public long nanoTime() {
			return this.nanos;
		}

		@Override
		public long currentTimeMillis() {
			return this.nanos / 1_000_000;
		}

	}

}
