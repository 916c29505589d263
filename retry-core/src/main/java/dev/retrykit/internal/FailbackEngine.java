package dev.retrykit.internal;

import java.lang.System.Logger.Level;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;

import dev.retrykit.RetryEventType;
import dev.retrykit.failback.FailbackExecutor;
import dev.retrykit.failback.FailbackListener;
import dev.retrykit.failback.FailbackTask;
import dev.retrykit.spi.RetryScheduler;

/**
 * The {@link FailbackExecutor} of one instance: pending tasks by key, each retried on the scheduler
 * with the instance's decisions (classification, attempts, backoff, breaker, budget). Thread-safe.
 */
public final class FailbackEngine implements FailbackExecutor {

	private static final System.Logger LOGGER = System.getLogger(FailbackExecutor.class.getName());

	final RetryRuntime runtime;

	final RetryScheduler scheduler;

	final ConcurrentHashMap<Object, FailbackEntry> pending = new ConcurrentHashMap<>();

	/**
	 * Entries whose first attempt runs now, on the submitting thread: not pending yet, but
	 * {@link #shutdown()} must find them, or they would go on retrying after it.
	 */
	private final Set<FailbackEntry> starting = ConcurrentHashMap.newKeySet();

	private final int exhaustedCapacity;

	private final ArrayDeque<FailbackTask> exhausted = new ArrayDeque<>();

	private final AtomicLong exhaustedCount = new AtomicLong();

	private final AtomicLong exhaustedDropped = new AtomicLong();

	private final AtomicLong replaced = new AtomicLong();

	/** The most entries in {@link #pending}, new keys starting their first attempt counted in. */
	private final int capacity;

	/**
	 * Entries of keys that were not pending when submitted, from the capacity check until their first
	 * attempt ends: each holds a place, so that concurrent submits cannot overfill {@link #pending}.
	 * Guarded by {@link #admission}.
	 */
	private int admitted;

	private final Object admission = new Object();

	private final AtomicLong rejected = new AtomicLong();

	private final FailbackListeners listeners;

	private volatile boolean shutdown;

	/**
	 * Makes the failback executor of one instance.
	 * @param runtime the instance whose policy applies; retries wait on its scheduler, the one its
	 * async calls use
	 * @param exhaustedCapacity how many exhausted tasks to keep
	 * @param listeners the initial listeners
	 */
	public FailbackEngine(RetryRuntime runtime, int exhaustedCapacity, List<FailbackListener> listeners) {
		this.runtime = runtime;
		this.scheduler = runtime.scheduler;
		this.exhaustedCapacity = exhaustedCapacity;
		this.capacity = runtime.config.getFailbackCapacity();
		this.listeners = new FailbackListeners(runtime.name, runtime.counters, listeners);
	}

	@Override
	public String getName() {
		return this.runtime.name;
	}

	@Override
	public boolean submit(Object key, Runnable task) {
		return submit(key, task, false);
	}

	@Override
	public boolean submit(Object key, Runnable task, boolean check) {
		java.util.Objects.requireNonNull(key, "key must not be null");
		java.util.Objects.requireNonNull(task, "task must not be null");
		if (this.shutdown) {
			throw rejected(key);
		}
		// A checked submit never queues: it needs no place.
		boolean holdsPlace = !check && admit(key);
		FailbackEntry entry = new FailbackEntry(this, key, task);
		// Registered before the flag is read again: shutdown() sets the flag, then looks here, so a
		// task is either rejected now or found (and cancelled) by shutdown().
		this.starting.add(entry);
		try {
			if (this.shutdown) {
				throw rejected(key);
			}
			FailbackEntry previous = this.pending.remove(key);
			if (previous != null && previous.cancel()) {
				this.replaced.incrementAndGet();
			}
			return entry.runFirst(check);
		}
		finally {
			// After runFirst: a failed first attempt is in pending by now, so shutdown() cannot miss it.
			this.starting.remove(entry);
			if (holdsPlace) {
				synchronized (this.admission) {
					this.admitted--;
				}
			}
		}
	}

	/**
	 * Checks the capacity for a submit of {@code key}: a pending key takes no new place (its task is
	 * replaced); a new one takes a place until its first attempt ends, and is refused when none is free.
	 * @return whether the submit holds a place to give back
	 * @throws RejectedExecutionException when the executor is full (counted)
	 */
	private boolean admit(Object key) {
		synchronized (this.admission) {
			if (this.pending.containsKey(key)) {
				return false;
			}
			int taken = this.pending.size() + this.admitted;
			if (taken >= this.capacity) {
				this.rejected.incrementAndGet();
				throw new RejectedExecutionException("Failback executor '" + getName() + "' is full: " + taken
						+ " tasks are pending, its capacity (retry.instances." + getName()
						+ ".failback.capacity, or RetryConfigBuilder.failbackCapacity) is " + this.capacity + "; task '"
						+ key + "' was not run");
			}
			this.admitted++;
			return true;
		}
	}

	private RejectedExecutionException rejected(Object key) {
		return new RejectedExecutionException("Failback executor '" + getName() + "' is shut down; task '" + key
				+ "' was not run");
	}

	@Override
	public boolean cancel(Object key) {
		FailbackEntry entry = this.pending.remove(key);
		return entry != null && entry.cancel();
	}

	@Override
	public int retryAllNow() {
		int rescheduled = 0;
		for (FailbackEntry entry : this.pending.values()) {
			if (entry.rescheduleNow()) {
				rescheduled++;
			}
		}
		return rescheduled;
	}

	@Override
	public List<FailbackTask> pendingTasks() {
		// The map's iteration is weakly consistent: while the table resizes it may meet a key twice, the
		// entry it replaced and the new one. A snapshot shows one task per key: the one mapped now.
		java.util.Map<Object, FailbackEntry> byKey = new java.util.HashMap<>();
		for (FailbackEntry entry : this.pending.values()) {
			FailbackEntry seen = byKey.putIfAbsent(entry.key, entry);
			if (seen != null && this.pending.get(entry.key) == entry) {
				byKey.put(entry.key, entry);
			}
		}
		List<FailbackTask> tasks = new ArrayList<>(byKey.size());
		byKey.values().forEach(entry -> tasks.add(entry.snapshot()));
		tasks.sort(Comparator.comparing(FailbackTask::submittedAt));
		return tasks;
	}

	@Override
	public List<FailbackTask> exhaustedTasks() {
		synchronized (this.exhausted) {
			return List.copyOf(this.exhausted);
		}
	}

	@Override
	public int pendingCount() {
		return this.pending.size();
	}

	@Override
	public long exhaustedCount() {
		return this.exhaustedCount.get();
	}

	@Override
	public long exhaustedDropped() {
		return this.exhaustedDropped.get();
	}

	@Override
	public long replacedCount() {
		return this.replaced.get();
	}

	@Override
	public int capacity() {
		return this.capacity;
	}

	@Override
	public long rejectedCount() {
		return this.rejected.get();
	}

	@Override
	public void addListener(FailbackListener listener) {
		this.listeners.add(listener);
	}

	@Override
	public List<FailbackTask> shutdown() {
		this.shutdown = true;
		List<FailbackTask> left = new ArrayList<>();
		for (FailbackEntry entry : List.copyOf(this.starting)) {
			// Its first attempt still runs; cancelled, it is not queued when that attempt fails.
			if (entry.cancel()) {
				left.add(entry.snapshot());
			}
		}
		for (Object key : List.copyOf(this.pending.keySet())) {
			FailbackEntry entry = this.pending.remove(key);
			if (entry != null && entry.cancel()) {
				left.add(entry.snapshot());
			}
		}
		left.sort(Comparator.comparing(FailbackTask::submittedAt));
		if (!left.isEmpty()) {
			LOGGER.log(Level.WARNING, () -> "Failback executor '" + getName() + "' shut down with " + left.size()
					+ " pending task(s) that will not be retried: " + left.stream().map(FailbackTask::key).toList());
		}
		return left;
	}

	@Override
	public boolean isShutdown() {
		return this.shutdown;
	}

	/**
	 * @param first whether the entry is queued for the first time: only then is it put in
	 * {@link #pending} (replacing another entry of its key); a later retry finds it there unless it was
	 * cancelled or replaced, and must not bring it back
	 */
	void queued(FailbackEntry entry, long delayNanos, boolean first) {
		if (first) {
			FailbackEntry previous = this.pending.put(entry.key, entry);
			if (previous != null && previous != entry && previous.cancel()) {
				this.replaced.incrementAndGet();
			}
			if (entry.isCancelled()) {
				// Cancelled (by shutdown()) while it was being queued: it must not stay pending.
				this.pending.remove(entry.key, entry);
				return;
			}
		}
		this.runtime.counters.event(RetryEventType.FAILBACK_SCHEDULED, entry.context.getRetryCount(),
				entry.context.getLastThrowable(), delayNanos);
		FailbackTask snapshot = entry.snapshot();
		this.listeners.onQueued(snapshot);
	}

	void succeeded(FailbackEntry entry) {
		if (this.pending.remove(entry.key, entry)) {
			FailbackTask snapshot = entry.snapshot();
			this.listeners.onSucceeded(snapshot);
		}
	}

	void exhausted(FailbackEntry entry, Throwable lastFailure) {
		this.pending.remove(entry.key, entry);
		FailbackTask snapshot = entry.snapshot();
		this.exhaustedCount.incrementAndGet();
		synchronized (this.exhausted) {
			if (this.exhausted.size() == this.exhaustedCapacity) {
				this.exhausted.removeFirst();
				this.exhaustedDropped.incrementAndGet();
			}
			this.exhausted.addLast(snapshot);
		}
		this.runtime.counters.event(RetryEventType.FAILBACK_EXHAUSTED, entry.context.getRetryCount(), lastFailure, 0);
		LOGGER.log(Level.WARNING, () -> "Failback task '" + entry.key + "' of '" + getName() + "' is exhausted after "
				+ snapshot.attempts() + " attempt(s); last failure: " + lastFailure);
		this.listeners.onExhausted(snapshot, lastFailure);
	}

	Instant now() {
		return Instant.ofEpochMilli(this.runtime.timeSource.currentTimeMillis());
	}

	@Override
	public String toString() {
		return "FailbackExecutor[name=" + getName() + ", pending=" + pendingCount() + ", capacity=" + this.capacity
				+ ", exhausted=" + exhaustedCount() + ", rejected=" + rejectedCount() + "]";
	}

}
