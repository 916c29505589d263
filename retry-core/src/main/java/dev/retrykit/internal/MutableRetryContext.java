package dev.retrykit.internal;

import java.util.HashMap;
import java.util.Map;

import dev.retrykit.Deadline;
import dev.retrykit.context.RetryContext;
import dev.retrykit.context.StopReason;
import dev.retrykit.spi.BackoffCursor;
import dev.retrykit.context.CallOutcome;
import org.jspecify.annotations.Nullable;

/**
 * The engine's {@link RetryContext}: the public view plus the per-call bookkeeping of the engine
 * (deadline, backoff cursor, previous delay). Not thread-safe; one call uses it at a time.
 *
 * <p>Every pending async retry holds one, so it is kept to 56 bytes with compressed oops (the
 * {@code PendingRetriesScale} benchmark): the exhausted-only and touched flags, the outcome and whether
 * the last failure was a result share an int with the retry count; the last exception and the last
 * rejected result share a field, since only one of them is the last failure; what few calls have (an
 * enclosing call, attributes, a caller's {@link Deadline}, why a failed call stopped) lives in
 * {@link Extras}, made the first time one of them is set; and what only stateful calls need lives in
 * {@link Stateful}.
 */
public sealed class MutableRetryContext implements RetryContext permits MutableRetryContext.Stateful {

	private static final int EXHAUSTED_ONLY = Integer.MIN_VALUE;

	private static final CallOutcome[] OUTCOMES = CallOutcome.values();

	/**
	 * Set by whatever leaves state that a pooled context must clear before its next call (a rejection,
	 * an attribute); a failure sets the count. So one read of {@link #countAndFlag} tells whether a
	 * call left anything behind.
	 */
	private static final int TOUCHED = 1 << 30;

	private static final int OUTCOME_SHIFT = 27;

	/** How the call ended, as {@link CallOutcome#ordinal()} + 1, or 0 while it runs (three bits). */
	private static final int OUTCOME_MASK = 7 << OUTCOME_SHIFT;

	/** Set when {@link #last} is a rejected result rather than an exception. */
	private static final int LAST_IS_RESULT = 1 << 26;

	/** The failed attempts: 26 bits, so the count saturates at 67,108,863. */
	private static final int COUNT_MASK = LAST_IS_RESULT - 1;

	private String name = "";

	/**
	 * The failed attempts in the low 26 bits (saturating); bit 26 {@link #LAST_IS_RESULT}; bits 27 to 29
	 * the outcome ({@link #OUTCOME_MASK}), bit 30 {@link #TOUCHED}, the sign bit the exhausted-only flag.
	 * None of them is a field of its own: a byte would make the context 8 bytes larger.
	 */
	private int countAndFlag;

	/** The last failure: its exception, or, when {@link #LAST_IS_RESULT} is set, the rejected result. */
	private @Nullable Object last;

	private @Nullable Extras extras;

	/**
	 * The call's deadline on the engine's clock: the earlier of its max-duration from its start and its
	 * caller's {@link Deadline} ({@link CallDeadlines}); {@code Long.MAX_VALUE} when it has neither. A
	 * pooled context holds {@code Long.MAX_VALUE} between calls.
	 */
	public long deadlineNanos = CallDeadlines.NONE;

	/** The backoff cursor of the call, started on its first failure. */
	public @Nullable BackoffCursor cursor;

	/** The previous backoff delay, for cursors that depend on it. */
	public long previousDelayNanos;

	/** The circuit breaker's permit for the attempt in progress. */
	public long permit;

	/**
	 * Makes the context of a call, before its first attempt.
	 * @param name the instance name
	 * @param parent the enclosing context or {@code null}
	 */
	public MutableRetryContext(String name, @Nullable RetryContext parent) {
		reset(name, parent);
	}

	MutableRetryContext() {
	}

	void reset(String name, @Nullable RetryContext parent) {
		// References are stored only when they differ: a pooled context is long-lived, and each
		// reference store into it costs a GC write barrier. The rest was cleared by release().
		if (this.name != name) {
			this.name = name;
		}
		setParent(parent);
	}

	/**
	 * Records how the call ended, before its listeners are closed.
	 * @param outcome the outcome
	 */
	public void outcome(CallOutcome outcome) {
		this.countAndFlag = (this.countAndFlag & ~OUTCOME_MASK) | ((outcome.ordinal() + 1) << OUTCOME_SHIFT);
	}

	@Override
	public @Nullable CallOutcome getOutcome() {
		int code = (this.countAndFlag & OUTCOME_MASK) >>> OUTCOME_SHIFT;
		return (code == 0) ? null : OUTCOMES[code - 1];
	}

	/**
	 * Clears what a call left in a pooled context as the call ends, so that an idle (or dead) thread's
	 * context holds no failure, result or attribute. A call that succeeded at once left nothing: that
	 * path reads one field and writes none (an outcome is recorded only where something reads it: a
	 * listener, a failure), so a pooled context needs no clearing as its next call starts.
	 */
	void release() {
		if (this.countAndFlag != 0) {
			this.countAndFlag = 0;
			this.last = null;
			this.cursor = null;
			this.previousDelayNanos = 0;
			this.deadlineNanos = CallDeadlines.NONE;
			Extras extras = this.extras;
			if (extras != null) {
				if (extras.attributes != null) {
					extras.attributes.clear();
				}
				extras.deadline = null;
				extras.deadlinePassedNanos = 0;
				extras.stopReason = null;
			}
		}
	}

	/**
	 * Sets the call's deadline ({@link CallDeadlines#open}).
	 * @param nanos the deadline on the engine's clock, or {@code Long.MAX_VALUE} for none
	 * @param deadline the caller's deadline, which the call's attempts run under, or {@code null}
	 */
	void deadline(long nanos, @Nullable Deadline deadline) {
		// A pooled context holds no deadline between calls: for most calls there is nothing to store.
		if (nanos != this.deadlineNanos) {
			this.deadlineNanos = nanos;
		}
		if (deadline != null) {
			extras().deadline = deadline;
		}
		else if (this.extras != null && this.extras.deadline != null) {
			this.extras.deadline = null;
		}
		if (nanos != CallDeadlines.NONE || deadline != null) {
			this.countAndFlag |= TOUCHED;
		}
	}

	/**
	 * Records that the caller's deadline had passed when the call opened.
	 * @param passedNanos how long before (at least 1)
	 */
	void deadlinePassed(long passedNanos) {
		extras().deadlinePassedNanos = passedNanos;
		this.countAndFlag |= TOUCHED;
	}

	/** {@return how long before the call opened its caller's deadline had passed, or 0 when it had not} */
	long deadlinePassedNanos() {
		Extras extras = this.extras;
		return (extras != null) ? extras.deadlinePassedNanos : 0;
	}

	/** {@return the caller's deadline that the call runs under, or {@code null}} */
	@Nullable Deadline deadline() {
		Extras extras = this.extras;
		return (extras != null) ? extras.deadline : null;
	}

	/**
	 * Records why the call stopped, before its listeners are closed.
	 * @param reason why the call, which did not succeed, stopped
	 */
	public void stopReason(StopReason reason) {
		this.countAndFlag |= TOUCHED;
		extras().stopReason = reason;
	}

	/** Forgets why the call would have stopped: it succeeded after all (a hedged call's later copy). */
	void clearStopReason() {
		Extras extras = this.extras;
		if (extras != null && extras.stopReason != null) {
			extras.stopReason = null;
		}
	}

	@Override
	public @Nullable StopReason getStopReason() {
		Extras extras = this.extras;
		return (extras != null) ? extras.stopReason : null;
	}

	/**
	 * Counts a failed attempt.
	 * @param failure the exception, or {@code null} for a rejected result
	 * @param result the rejected result when {@code failure} is {@code null}
	 */
	public void registerFailure(@Nullable Throwable failure, @Nullable Object result) {
		int flags = this.countAndFlag;
		if ((flags & COUNT_MASK) != COUNT_MASK) {
			flags++;
		}
		this.countAndFlag = (failure != null) ? flags & ~LAST_IS_RESULT : flags | LAST_IS_RESULT;
		Object last = (failure != null) ? failure : result;
		// Stored only when it differs, as in reset(): each reference store costs a write barrier.
		if (this.last != last) {
			this.last = last;
		}
	}

	/**
	 * Makes a rejection (open circuit) the call's last failure without counting a failed attempt.
	 * @param rejection the rejection
	 */
	public void rejected(Throwable rejection) {
		this.countAndFlag = (this.countAndFlag | TOUCHED) & ~LAST_IS_RESULT;
		this.last = rejection;
	}

	/**
	 * Restores the count of a context read back from a foreign cache implementation.
	 * @param retryCount the failed attempts so far (counts above 67,108,863 are kept as that)
	 * @param lastThrowable the last failure
	 * @param exhaustedOnly whether the context was marked exhausted
	 */
	public void restore(int retryCount, @Nullable Throwable lastThrowable, boolean exhaustedOnly) {
		this.countAndFlag = (this.countAndFlag & OUTCOME_MASK) | Math.min(Math.max(0, retryCount), COUNT_MASK)
				| (exhaustedOnly ? EXHAUSTED_ONLY : 0);
		this.last = lastThrowable;
	}

	/**
	 * A copy for a call that outlives the pooled context it started with (an async call).
	 * @return a new context with this one's state
	 */
	public MutableRetryContext copy() {
		return copyInto(new MutableRetryContext(this.name, null));
	}

	/** Copies this context's state into {@code copy}, a fresh context, and returns it. */
	final MutableRetryContext copyInto(MutableRetryContext copy) {
		copy.countAndFlag = this.countAndFlag & ~OUTCOME_MASK; // a fresh context: no outcome yet
		copy.last = this.last;
		copy.deadlineNanos = this.deadlineNanos;
		copy.permit = this.permit;
		copy.cursor = this.cursor;
		copy.previousDelayNanos = this.previousDelayNanos;
		Map<String, Object> attributes = attributes();
		if (attributes != null && !attributes.isEmpty()) {
			copy.extras().attributes = new HashMap<>(attributes);
		}
		Deadline deadline = deadline();
		if (deadline != null) {
			copy.extras().deadline = deadline;
		}
		return copy;
	}

	/** {@return the last rejected result, when the last failure was a result} */
	public @Nullable Object getLastResult() {
		return ((this.countAndFlag & LAST_IS_RESULT) != 0) ? this.last : null;
	}

	/**
	 * Sets the context of the call this one runs inside, if any.
	 * @param parent the enclosing context
	 */
	public void setParent(@Nullable RetryContext parent) {
		// Stored only when it differs, as in reset(); an outermost call never makes the extras.
		Extras extras = this.extras;
		if (extras != null) {
			if (extras.parent != parent) {
				extras.parent = parent;
			}
		}
		else if (parent != null) {
			extras().parent = parent;
		}
	}

	private Extras extras() {
		Extras extras = this.extras;
		if (extras == null) {
			extras = new Extras();
			this.extras = extras;
		}
		return extras;
	}

	private @Nullable Map<String, Object> attributes() {
		Extras extras = this.extras;
		return (extras != null) ? extras.attributes : null;
	}

	@Override
	public String getName() {
		return this.name;
	}

	@Override
	public int getRetryCount() {
		return this.countAndFlag & COUNT_MASK;
	}

	@Override
	public @Nullable Throwable getLastThrowable() {
		return ((this.countAndFlag & LAST_IS_RESULT) == 0) ? (Throwable) this.last : null;
	}

	@Override
	public @Nullable RetryContext getParent() {
		Extras extras = this.extras;
		return (extras != null) ? extras.parent : null;
	}

	@Override
	public void setExhaustedOnly() {
		this.countAndFlag |= EXHAUSTED_ONLY;
	}

	@Override
	public boolean isExhaustedOnly() {
		return this.countAndFlag < 0;
	}

	@Override
	public @Nullable Object getAttribute(String name) {
		Map<String, Object> attributes = attributes();
		return (attributes != null) ? attributes.get(name) : null;
	}

	@Override
	public void setAttribute(String name, @Nullable Object value) {
		if (value == null) {
			Map<String, Object> attributes = attributes();
			if (attributes != null) {
				attributes.remove(name);
			}
			return;
		}
		Extras extras = extras();
		if (extras.attributes == null) {
			extras.attributes = new HashMap<>();
		}
		this.countAndFlag |= TOUCHED;
		extras.attributes.put(name, value);
	}

	@Override
	public java.util.Set<String> attributeNames() {
		Map<String, Object> attributes = attributes();
		return (attributes != null) ? java.util.Set.copyOf(attributes.keySet()) : java.util.Set.of();
	}

	@Override
	public boolean hasAttribute(String name) {
		Map<String, Object> attributes = attributes();
		return attributes != null && attributes.containsKey(name);
	}

	@Override
	public String toString() {
		Throwable lastThrowable = getLastThrowable();
		return "RetryContext[name=" + this.name + ", retryCount=" + getRetryCount() + ", lastThrowable="
				+ ((lastThrowable != null) ? lastThrowable.getClass().getName() : null) + "]";
	}

	/** What few calls have, kept out of the context so that the others do not pay 8 bytes for it. */
	private static final class Extras {

		/** The context of the call this one runs inside. */
		@Nullable RetryContext parent;

		/** The user's attributes, made by the first one set. */
		@Nullable Map<String, Object> attributes;

		/** The caller's deadline that the call runs under. */
		@Nullable Deadline deadline;

		/** How long before the call opened its caller's deadline had passed, or 0 when it had not. */
		long deadlinePassedNanos;

		/** Why the call stopped, once it ended without success. */
		@Nullable StopReason stopReason;

	}

	/** The context of a stateful call, kept in the context cache between calls. */
	public static final class Stateful extends MutableRetryContext {

		/** The monotonic time before which the next attempt must not start, or 0. */
		public long notBeforeNanos;

		/**
		 * The deadline by max-duration, counted from the key's first call, or {@code Long.MAX_VALUE}: each
		 * call's own deadline is the earlier of it and that call's caller's {@link Deadline}.
		 */
		public long keyDeadlineNanos = CallDeadlines.NONE;

		/**
		 * Makes the context of a stateful call, before its first attempt.
		 * @param name the instance name
		 * @param parent the enclosing context or {@code null}
		 */
		public Stateful(String name, @Nullable RetryContext parent) {
			super(name, parent);
		}

		/**
		 * A copy for one call: a context kept in the cache is never changed, so that calls with one key
		 * can run at once and record their outcomes with an atomic cache update.
		 * @param parent the enclosing context of the call
		 * @return a new context with this one's state
		 */
		public Stateful copy(@Nullable RetryContext parent) {
			Stateful copy = new Stateful(getName(), parent);
			copyInto(copy);
			copy.notBeforeNanos = this.notBeforeNanos;
			copy.keyDeadlineNanos = this.keyDeadlineNanos;
			return copy;
		}

	}

}
