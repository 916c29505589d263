package dev.retrykit.async;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

import dev.retrykit.spi.ScheduledTask;
import org.jspecify.annotations.Nullable;

/**
 * One scheduled task of a {@link TimingWheelScheduler}: the handle a caller gets back and, at the same
 * time, the intrusive list node the wheel links into its incoming stack and its buckets.
 *
 * <p>Kept deliberately small because a million of them may be pending: with compressed oops the
 * layout is a 12-byte header, {@code int state}, {@code long deadlineTick} and three references
 * ({@code owner}, {@code task}, {@code next}) = 36 bytes, padded to 40. There is no {@code prev}
 * link: nodes only leave a bucket while the timer walks it (cancelled nodes are unlinked lazily), so a
 * singly linked list is enough. The owner reference costs nothing extra (it fills the alignment gap)
 * and lets {@link #cancel()} keep the scheduler's counters exact.
 *
 * <p>Thread-safety: {@link #state} is the only field written by several threads, always by CAS. The
 * thread that wins the CAS out of {@link #PENDING} owns {@link #task} and clears it. {@link #next} is
 * written by the scheduling thread before the node is published and afterwards only by the thread
 * that drives the wheel.
 */
final class WheelTimeout implements ScheduledTask {

	static final int PENDING = 0;
	static final int CANCELLED = 1;
	static final int EXPIRED = 2;
	/** Handed back by {@link TimingWheelScheduler#stop()} without having run. */
	static final int STOPPED = 3;

	private static final VarHandle STATE;

	static {
		try {
			STATE = MethodHandles.lookup().findVarHandle(WheelTimeout.class, "state", int.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	private final TimingWheelScheduler owner;

	/** The first wheel tick at or after the deadline; the task fires when that tick is processed. */
	final long deadlineTick;

	private @Nullable Runnable task;

	/** Link in the incoming stack, then in a bucket; owned by the thread driving the wheel. */
	@Nullable WheelTimeout next;

	private volatile int state;

	WheelTimeout(TimingWheelScheduler owner, @Nullable Runnable task, long deadlineTick) {
		this.owner = owner;
		this.task = task;
		this.deadlineTick = deadlineTick;
	}

	/**
	 * Moves this node out of {@link #PENDING} and takes its task, releasing the node's reference to it.
	 * @param newState the final state
	 * @return the task, or {@code null} if the node had already left {@code PENDING}
	 */
	@Nullable Runnable claim(int newState) {
		if (!STATE.compareAndSet(this, PENDING, newState)) {
			return null;
		}
		Runnable claimed = this.task;
		this.task = null;
		return claimed;
	}

	boolean isPending() {
		return this.state == PENDING;
	}

	/**
	 * Cancels the task if it has not fired. O(1): one CAS, and the task reference is dropped at once;
	 * the node is unlinked lazily the next time the timer visits it.
	 */
	@Override
	public boolean cancel() {
		if (claim(CANCELLED) == null) {
			return false;
		}
		this.owner.onCancelled();
		return true;
	}

	@Override
	public boolean isCancelled() {
		return this.state == CANCELLED;
	}

	@Override
	public boolean isExpired() {
		return this.state == EXPIRED;
	}

	@Override
	public String toString() {
		String name = switch (this.state) {
			case PENDING -> "PENDING";
			case CANCELLED -> "CANCELLED";
			case EXPIRED -> "EXPIRED";
			default -> "STOPPED";
		};
		return "WheelTimeout[state=" + name + ", deadlineTick=" + this.deadlineTick + "]";
	}

}
