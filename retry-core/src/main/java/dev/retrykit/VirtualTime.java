package dev.retrykit;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

import dev.retrykit.spi.AbandonableTask;
import dev.retrykit.spi.RetryScheduler;
import dev.retrykit.spi.ScheduledTask;
import dev.retrykit.spi.Sleeper;
import dev.retrykit.spi.TimeSource;
import org.jspecify.annotations.Nullable;

/**
 * A virtual clock for tests: it is a {@link Sleeper} that advances time instead of waiting and records
 * every delay, a {@link TimeSource}, and a {@link RetryScheduler} whose tasks run on the thread that
 * advances time. Plug it into a template ({@link RetryTemplateBuilder#virtualTime}) or a registry and a
 * test of backoff, deadlines, circuit timeouts or async retries runs in microseconds.
 *
 * <pre>{@code
 * VirtualTime time = new VirtualTime();
 * RetryTemplate template = RetryTemplate.builder().virtualTime(time).build();
 * assertThatThrownBy(() -> template.execute(context -> { throw new IOException(); }));
 * assertThat(time.sleeps()).containsExactly(Duration.ofMillis(100), Duration.ofMillis(200));
 * }</pre>
 *
 * <p>Thread-safe. Scheduled tasks run outside the clock's lock, in deadline order (then scheduling
 * order), each with the clock set to its deadline.
 */
public final class VirtualTime implements Sleeper, TimeSource, RetryScheduler {

	private final Object lock = new Object();

	private final long epochMillisAtZero;

	private final PriorityQueue<Task> tasks = new PriorityQueue<>();

	private final List<Duration> sleeps = new ArrayList<>();

	private long nanos;

	private long sequence;

	private boolean stopped;

	/** A clock that starts at 2026-01-01T00:00:00Z. */
	public VirtualTime() {
		this(Instant.parse("2026-01-01T00:00:00Z"));
	}

	/**
	 * Makes a virtual clock that starts at {@code start} and moves only when advanced.
	 * @param start the wall-clock time at which the clock starts
	 */
	public VirtualTime(Instant start) {
		this.epochMillisAtZero = start.toEpochMilli();
	}

	@Override
	public long nanoTime() {
		synchronized (this.lock) {
			return this.nanos;
		}
	}

	@Override
	public long currentTimeMillis() {
		synchronized (this.lock) {
			return this.epochMillisAtZero + this.nanos / 1_000_000L;
		}
	}

	/**
	 * Records the delay and advances the clock by it, running the tasks that fall due.
	 * @param delayNanos the delay
	 */
	@Override
	public void sleep(long delayNanos) {
		synchronized (this.lock) {
			this.sleeps.add(Duration.ofNanos(delayNanos));
		}
		advance(Duration.ofNanos(delayNanos));
	}

	/** {@return every delay passed to {@link #sleep(long)}, in order} */
	public List<Duration> sleeps() {
		synchronized (this.lock) {
			return List.copyOf(this.sleeps);
		}
	}

	/** {@return the virtual time elapsed since the clock started} */
	public Duration elapsed() {
		return Duration.ofNanos(nanoTime());
	}

	/**
	 * Advances the clock, running each task that falls due at its own deadline.
	 * @param duration how far to advance, zero or more
	 */
	public void advance(Duration duration) {
		if (duration.isNegative()) {
			throw new IllegalArgumentException("Invalid duration (" + duration + "): must be zero or greater");
		}
		long target;
		synchronized (this.lock) {
			target = this.nanos + duration.toNanos();
		}
		for (;;) {
			Task due;
			synchronized (this.lock) {
				Task next = this.tasks.peek();
				if (next == null || next.deadline > target) {
					this.nanos = Math.max(this.nanos, target);
					return;
				}
				due = this.tasks.poll();
				this.nanos = Math.max(this.nanos, due.deadline);
			}
			due.run();
		}
	}

	/** Runs the tasks that are due now, without advancing the clock. */
	public void runDueTasks() {
		advance(Duration.ZERO);
	}

	/** {@return the number of scheduled tasks that have not run and were not cancelled} */
	public int pendingTasks() {
		synchronized (this.lock) {
			return (int) this.tasks.stream().filter(task -> !task.cancelled).count();
		}
	}

	/** {@return how long until the next pending task is due, or {@code null} when none is pending} */
	public @Nullable Duration untilNextTask() {
		synchronized (this.lock) {
			return this.tasks.stream().filter(task -> !task.cancelled).map(task -> task.deadline).min(Long::compare)
				.map(deadline -> Duration.ofNanos(Math.max(0, deadline - this.nanos))).orElse(null);
		}
	}

	/**
	 * Stops accepting tasks; pending ones are dropped and returned, each {@link AbandonableTask}
	 * among them {@linkplain AbandonableTask#abandon abandoned} first (outside the lock), as a
	 * stopping scheduler must.
	 * @return the tasks that had not run
	 */
	public List<Runnable> stop() {
		List<Runnable> pending = new ArrayList<>();
		synchronized (this.lock) {
			this.stopped = true;
			for (Task task : this.tasks) {
				if (!task.cancelled) {
					pending.add(task.task);
				}
			}
			this.tasks.clear();
		}
		RejectedExecutionException stopped = new RejectedExecutionException(
				"VirtualTime scheduler is stopped; no task is accepted");
		for (Runnable task : pending) {
			AbandonableTask.abandonIfAbandonable(task, stopped);
		}
		return pending;
	}

	@Override
	public ScheduledTask schedule(Runnable task, long delay, TimeUnit unit) {
		Objects.requireNonNull(task, "task must not be null");
		synchronized (this.lock) {
			if (this.stopped) {
				throw new RejectedExecutionException("VirtualTime scheduler is stopped; no task is accepted");
			}
			Task scheduled = new Task(task, this.nanos + Math.max(0, unit.toNanos(delay)), this.sequence++);
			this.tasks.add(scheduled);
			return scheduled;
		}
	}

	@Override
	public String toString() {
		return "VirtualTime[elapsed=" + elapsed() + ", pendingTasks=" + pendingTasks() + "]";
	}

	private final class Task implements ScheduledTask, Comparable<Task>, Runnable {

		private final Runnable task;

		private final long deadline;

		private final long order;

		private boolean cancelled;

		private boolean expired;

		Task(Runnable task, long deadline, long order) {
			this.task = task;
			this.deadline = deadline;
			this.order = order;
		}

		@Override
		public void run() {
			synchronized (VirtualTime.this.lock) {
				if (this.cancelled) {
					return;
				}
				this.expired = true;
			}
			this.task.run();
		}

		@Override
		public boolean cancel() {
			synchronized (VirtualTime.this.lock) {
				if (this.cancelled || this.expired) {
					return false;
				}
				this.cancelled = true;
				VirtualTime.this.tasks.remove(this);
				return true;
			}
		}

		@Override
		public boolean isCancelled() {
			synchronized (VirtualTime.this.lock) {
				return this.cancelled;
			}
		}

		@Override
		public boolean isExpired() {
			synchronized (VirtualTime.this.lock) {
				return this.expired;
			}
		}

		@Override
		public int compareTo(Task other) {
			int byDeadline = Long.compare(this.deadline, other.deadline);
			return (byDeadline != 0) ? byDeadline : Long.compare(this.order, other.order);
		}

	}

}
