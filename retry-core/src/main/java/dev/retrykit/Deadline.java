package dev.retrykit;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.SwitchPoint;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Callable;

import dev.retrykit.spi.TimeSource;
import org.jspecify.annotations.Nullable;

/**
 * A point in time after which nobody waits for the work any more: the caller of a request, or the
 * request's own caller several services up. Under a deadline a retried call never starts an attempt,
 * a hedged copy or a backoff that would end after it: it ends at once with its last failure (counted
 * as a rejection with reason {@code deadline}), and each async attempt's timeout shrinks to the time
 * left. A call's own {@code max-duration} still applies; the earlier of the two wins.
 *
 * <p>A deadline reaches a call through scoping: {@link #enter()} makes it current on the thread
 * ({@link #current()}) until the scope closes, and the engine carries it to the call's async
 * attempts and hedged copies, whatever thread they run on. retry-reactor reads it from the Reactor
 * {@code Context} under the key {@code Deadline.class}; the Spring module runs each HTTP request that
 * carries {@code X-Request-Timeout} under such a deadline and sends the time left with outgoing calls.
 *
 * <pre>{@code
 * try (Deadline.Scope scope = Deadline.after(Duration.ofSeconds(2)).enter()) {
 *     inventory.execute(context -> client.reserve(order));   // no retry starts after the 2 s
 * }
 * }</pre>
 *
 * <p>A deadline only ever shortens the time left: entering one while a sooner one is current keeps
 * the sooner one. Immutable and thread-safe; a scope belongs to the thread that entered it.
 */
public final class Deadline {

	/**
	 * Remaining times beyond this (about 146 years) are treated as this, so that adding a remaining
	 * time to a clock reading never overflows.
	 */
	private static final long MAX_NANOS = Long.MAX_VALUE / 2;

	private static final ThreadLocal<@Nullable Deadline> CURRENT = new ThreadLocal<>();

	/**
	 * Valid until any thread first enters a deadline. Until then {@link #current()} answers {@code null} through
	 * a guard the JIT compiles to nothing (a dependency of the compiled code, not a test), so that calls in an
	 * application that never uses deadlines pay nothing for them; entering the first deadline invalidates it
	 * once (compiled callers are deoptimised and recompiled with the thread-local lookup).
	 */
	private static final SwitchPoint NEVER_ENTERED = new SwitchPoint();

	/** {@link #current()}: {@code null} while {@link #NEVER_ENTERED} holds, then the thread-local's value. */
	private static final MethodHandle CURRENT_OR_NONE;

	static {
		try {
			MethodHandle lookup = MethodHandles.lookup().findStatic(Deadline.class, "currentOnThread",
					MethodType.methodType(Deadline.class));
			CURRENT_OR_NONE = NEVER_ENTERED.guardWithTest(MethodHandles.zero(Deadline.class), lookup);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	/** Set once, under the class's lock, when the first deadline is entered. */
	private static volatile boolean entered;

	private final TimeSource timeSource;

	/** The deadline on {@link #timeSource}'s clock. */
	private final long nanos;

	private Deadline(TimeSource timeSource, long nanos) {
		this.timeSource = timeSource;
		this.nanos = nanos;
	}

	/**
	 * A deadline {@code timeout} from now on the system clock.
	 * @param timeout the time left; zero or negative makes a deadline that has already passed
	 * @return the deadline
	 */
	public static Deadline after(Duration timeout) {
		return after(timeout, TimeSource.SYSTEM);
	}

	/**
	 * A deadline {@code timeout} from now on {@code timeSource}'s clock (a {@link VirtualTime} in tests).
	 * @param timeout the time left; zero or negative makes a deadline that has already passed, and
	 * more than about 146 years is treated as that much
	 * @param timeSource the clock the deadline is read on
	 * @return the deadline
	 */
	public static Deadline after(Duration timeout, TimeSource timeSource) {
		Objects.requireNonNull(timeout, "timeout must not be null");
		Objects.requireNonNull(timeSource, "timeSource must not be null");
		long left = clamp(timeout);
		return new Deadline(timeSource, timeSource.nanoTime() + left);
	}

	/**
	 * {@return the deadline current on this thread, or {@code null} when the thread runs under none}
	 */
	public static @Nullable Deadline current() {
		try {
			return (Deadline) CURRENT_OR_NONE.invokeExact();
		}
		catch (Throwable ex) {
			// Neither handle throws.
			throw new IllegalStateException(ex);
		}
	}

	private static @Nullable Deadline currentOnThread() {
		return CURRENT.get();
	}

	private static void noteEntered() {
		if (!entered) {
			synchronized (Deadline.class) {
				if (!entered) {
					entered = true;
					SwitchPoint.invalidateAll(new SwitchPoint[] { NEVER_ENTERED });
				}
			}
		}
	}

	/**
	 * The earlier of two deadlines, either of which may be absent.
	 * @param first a deadline, or {@code null}
	 * @param second another, or {@code null}
	 * @return the one with less time left, or {@code null} when both are absent
	 */
	public static @Nullable Deadline earliest(@Nullable Deadline first, @Nullable Deadline second) {
		if (first == null) {
			return second;
		}
		if (second == null) {
			return first;
		}
		return (second.remainingNanos() < first.remainingNanos()) ? second : first;
	}

	/**
	 * {@return the time left before the deadline, {@link Duration#ZERO} once it has passed}
	 */
	public Duration remaining() {
		return Duration.ofNanos(Math.max(0, remainingNanos()));
	}

	/**
	 * {@return the time left in nanoseconds: zero or negative once the deadline has passed}
	 */
	public long remainingNanos() {
		return this.nanos - this.timeSource.nanoTime();
	}

	/**
	 * The time left at a reading of a clock, for code that has just read that clock: no second read when
	 * this deadline was made on it.
	 * @param clock the clock that was read
	 * @param nowNanos what it read
	 * @return the time left in nanoseconds at {@code nowNanos} (zero or negative once passed); on another
	 * clock than this deadline's, {@link #remainingNanos()}
	 */
	public long remainingNanosAt(TimeSource clock, long nowNanos) {
		return (clock == this.timeSource) ? this.nanos - nowNanos : remainingNanos();
	}

	/** {@return whether the deadline has passed} */
	public boolean isExpired() {
		return remainingNanos() <= 0;
	}

	/**
	 * Makes this deadline current on this thread until the returned scope is closed; when a sooner
	 * deadline is current already, that one stays current. Close the scope on the same thread, in
	 * try-with-resources.
	 * @return the scope, which restores the deadline that was current before
	 */
	public Scope enter() {
		noteEntered();
		Deadline previous = CURRENT.get();
		Deadline effective = earliest(previous, this);
		CURRENT.set(effective);
		return new Scope(previous);
	}

	/**
	 * Runs {@code task} under this deadline (see {@link #enter()}).
	 * @param task what to run
	 */
	public void run(Runnable task) {
		Objects.requireNonNull(task, "task must not be null");
		try (Scope scope = enter()) {
			task.run();
		}
	}

	/**
	 * Calls {@code task} under this deadline (see {@link #enter()}).
	 * @param task what to call
	 * @param <T> the result type
	 * @return what {@code task} returned
	 * @throws Exception what {@code task} threw
	 */
	public <T extends @Nullable Object> T call(Callable<T> task) throws Exception {
		Objects.requireNonNull(task, "task must not be null");
		try (Scope scope = enter()) {
			return task.call();
		}
	}

	/**
	 * A task that runs {@code task} under this deadline on whatever thread runs it: for handing work
	 * to an executor.
	 * @param task what to run
	 * @return the task under this deadline
	 */
	public Runnable wrap(Runnable task) {
		Objects.requireNonNull(task, "task must not be null");
		return () -> run(task);
	}

	@Override
	public String toString() {
		long left = remainingNanos();
		return (left <= 0) ? "Deadline[passed " + Duration.ofNanos(-left) + " ago]"
				: "Deadline[" + Duration.ofNanos(left) + " left]";
	}

	private static long clamp(Duration timeout) {
		if (timeout.isNegative() || timeout.isZero()) {
			return 0;
		}
		if (timeout.getSeconds() >= MAX_NANOS / 1_000_000_000L) {
			return MAX_NANOS;
		}
		return timeout.toNanos();
	}

	/**
	 * The time a deadline is current on a thread: closing it makes current again the deadline that
	 * was current before it was entered.
	 */
	public static final class Scope implements AutoCloseable {

		private final @Nullable Deadline previous;

		private boolean closed;

		private Scope(@Nullable Deadline previous) {
			this.previous = previous;
		}

		/** Restores the deadline that was current when this scope was entered; a second close does nothing. */
		@Override
		public void close() {
			if (this.closed) {
				return;
			}
			this.closed = true;
			if (this.previous == null) {
				CURRENT.remove();
			}
			else {
				CURRENT.set(this.previous);
			}
		}

	}

}
