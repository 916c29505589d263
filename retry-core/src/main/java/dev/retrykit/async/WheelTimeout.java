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
 * layout is a 12-byte header, {@code long deadlineTick} and three references ({@code owner},
 * {@code task}, {@code next}) = 32 bytes, with no padding. There is no {@code prev} link: nodes only
 * leave a bucket while the timer walks it (cancelled nodes are unlinked lazily), so a singly linked
 * list is enough. There is no state field either: {@code task} holds the task while the node is
 * pending and one of the final-state markers afterwards. The owner reference lets {@link #cancel()}
 * keep the scheduler's counters exact.
 *
 * <p>Thread-safety: {@link #task} is the only field written by several threads, always by CAS; the
 * thread whose CAS replaces the task with a marker owns the task. {@link #next} is written by the
 * scheduling thread before the node is published and afterwards only by the thread that drives the
 * wheel.
 */
final class WheelTimeout implements ScheduledTask {

	/** A final state, stored in {@link #task} in place of the task. */
	static final class State {

		private final String name;

		private State(String name) {
			this.name = name;
		}

		@Override
		public String toString() {
			return this.name;
		}

	}

	static final State CANCELLED = new State("CANCELLED");
	static final State EXPIRED = new State("EXPIRED");
	/** Handed back by {@link TimingWheelScheduler#stop()} without having run. */
	static final State STOPPED = new State("STOPPED");

	private static final VarHandle TASK;

	static {
		try {
			TASK = MethodHandles.lookup().findVarHandle(WheelTimeout.class, "task", Object.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	private final TimingWheelScheduler owner;

	/** The first wheel tick at or after the deadline; the task fires when that tick is processed. */
	final long deadlineTick;

	/** The {@link Runnable} while pending, then the {@link State} it ended in (via {@link #TASK}). */
	private volatile Object task;

	/** Link in the incoming stack, then in a bucket; owned by the thread driving the wheel. */
	@Nullable WheelTimeout next;

	/**
	 * @param owner the scheduler
	 * @param task the task, or a {@link State} for a node that is never pending (a marker)
	 * @param deadlineTick the tick on which it fires
	 */
	WheelTimeout(TimingWheelScheduler owner, Object task, long deadlineTick) {
		this.owner = owner;
		this.deadlineTick = deadlineTick;
		TASK.set(this, task); // plain: published with the node itself
	}

	/**
	 * Moves this node out of the pending state and takes its task, releasing the node's reference to it.
	 * @param newState the final state
	 * @return the task, or {@code null} if the node had already left the pending state
	 */
	@Nullable Runnable claim(State newState) {
		Object current = this.task;
		while (current instanceof Runnable runnable) {
			Object witness = TASK.compareAndExchange(this, current, newState);
			if (witness == current) {
				return runnable;
			}
			current = witness;
		}
		return null;
	}

	boolean isPending() {
		return !(this.task instanceof State);
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
		return this.task == CANCELLED;
	}

	@Override
	public boolean isExpired() {
		return this.task == EXPIRED;
	}

	@Override
	public String toString() {
		Object current = this.task;
		return "WheelTimeout[state=" + ((current instanceof State state) ? state : "PENDING") + ", deadlineTick="
				+ this.deadlineTick + "]";
	}

}
