package dev.retrykit.internal;

import java.util.List;
import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

import dev.retrykit.RetryEvent;
import dev.retrykit.RetryEventType;
import dev.retrykit.RetryMetrics;
import dev.retrykit.spi.TimeSource;
import org.jspecify.annotations.Nullable;

/**
 * The counters and recent events of one instance. Writers count into their own thread's
 * {@link ThreadCounters}; readers sum every block plus the totals folded from dead threads.
 * Thread-safe.
 */
public final class RetryCounters implements RetryMetrics {

	private static final AtomicInteger IDS = new AtomicInteger();

	private static final int MIN_FOLD_AFTER = 64;

	/**
	 * How many instances get a slot in each thread's {@link ContextStack}, the fast way to a thread's
	 * block. Ids are never reused, so an application that builds a template per call would otherwise
	 * grow every thread's array (and keep the blocks of dead instances) without bound; instances past
	 * this many find their blocks through a {@link ThreadLocal} of their own, whose entries go with
	 * the instance.
	 */
	static final int INDEXED_INSTANCES = 1024;

	/**
	 * Index of this instance's blocks in each thread's {@link ContextStack}; saturates at
	 * {@link Integer#MAX_VALUE} (past the indexed ones an id is not an index, and must not wrap to a
	 * negative one).
	 */
	final int id = IDS.getAndUpdate(last -> (last == Integer.MAX_VALUE) ? last : last + 1);

	/** The blocks of an instance past {@link #INDEXED_INSTANCES}, or {@code null}. */
	private final @Nullable ThreadLocal<ThreadCounters> overflow = (this.id >= INDEXED_INSTANCES)
			? ThreadLocal.withInitial(this::newBlock) : null;

	private final String name;

	private final TimeSource timeSource;

	/**
	 * Whether events are stamped by {@link TimeSource#coarseNanoTime() the system time source's coarse clock} rather than by the time source: so they
	 * are when the time source is the system's. Every event of an instance is stamped by one clock, so
	 * that their order is the order they happened in.
	 */
	private final boolean coarse;

	private final Queue<ThreadCounters> blocks = new ConcurrentLinkedQueue<>();

	private final AtomicLongArray folded = new AtomicLongArray(ThreadCounters.COUNT);

	/** Blocks added since the last fold; past {@link #foldAfter}, the next new block folds first. */
	private final AtomicInteger addedSinceFold = new AtomicInteger();

	/**
	 * Folding is triggered by new blocks as well as by readers, so that threads that live briefly (a
	 * virtual thread per request, say) cannot grow the list when nobody reads the metrics. The
	 * threshold follows the number of live blocks, which keeps folding's cost per new block constant.
	 */
	private volatile int foldAfter = MIN_FOLD_AFTER;

	private final LongAdder listenerFailures = new LongAdder();

	private final EventRing events;

	/** Hedges by result (started, won, lost, cancelled, refused): off the path of a first attempt that succeeds. */
	private final LongAdder hedgesStarted = new LongAdder();

	private final LongAdder hedgesWon = new LongAdder();

	private final LongAdder hedgesLost = new LongAdder();

	private final LongAdder hedgesCancelled = new LongAdder();

	private final LongAdder hedgesRefused = new LongAdder();

	/**
	 * Makes the counters of one instance, all zero.
	 * @param name the instance name
	 * @param timeSource the clock that stamps events
	 * @param eventCapacity how many recent events to keep
	 */
	public RetryCounters(String name, TimeSource timeSource, int eventCapacity) {
		this.name = name;
		this.timeSource = timeSource;
		this.coarse = (timeSource == TimeSource.SYSTEM);
		this.events = new EventRing(eventCapacity);
	}

	/** {@return the calling thread's counters of this instance} */
	public ThreadCounters forCurrentThread() {
		return ContextStack.get().counters(this);
	}

	ThreadCounters newBlock() {
		if (this.addedSinceFold.incrementAndGet() > this.foldAfter) {
			fold();
		}
		ThreadCounters block = new ThreadCounters(Thread.currentThread());
		this.blocks.add(block);
		return block;
	}

	private synchronized void fold() {
		int live = foldDeadThreads();
		this.addedSinceFold.set(0);
		this.foldAfter = Math.max(MIN_FOLD_AFTER, live);
	}

	/** @return the blocks kept, one per live thread that has used this instance (for tests) */
	int blockCount() {
		return this.blocks.size();
	}

	/** @return the calling thread's block of an instance past {@link #INDEXED_INSTANCES} */
	ThreadCounters overflowBlock() {
		return Objects.requireNonNull(this.overflow, "an indexed instance").get();
	}

	void hedgeStarted() {
		this.hedgesStarted.increment();
	}

	void hedgeWon() {
		this.hedgesWon.increment();
	}

	void hedgesLost(int count) {
		this.hedgesLost.add(count);
	}

	void hedgesCancelled(int count) {
		this.hedgesCancelled.add(count);
	}

	void hedgeRefused() {
		this.hedgesRefused.increment();
	}

	/** Counts a listener that threw. */
	public void listenerFailure() {
		this.listenerFailures.increment();
	}

	/**
	 * Records an event.
	 * @param type what happened
	 * @param attempt the attempt it is about (1-based)
	 * @param failure the failure, or {@code null}
	 * @param delayNanos the wait before the next attempt, 0 for none
	 */
	public void event(RetryEventType type, int attempt, @Nullable Throwable failure, long delayNanos) {
		eventAt(type, attempt, failure, delayNanos, RetryRuntime.NOT_READ);
	}

	/**
	 * Records an event at a time the caller has just read from this instance's time source.
	 * @param type what happened
	 * @param attempt the attempt it is about (1-based)
	 * @param failure the failure, or {@code null}
	 * @param delayNanos the wait before the next attempt, 0 for none
	 * @param nowNanos the time source's {@code nanoTime()}, read for this decision, or
	 * {@link RetryRuntime#NOT_READ}; an instance on the system time source stamps its events with
	 * {@link TimeSource#coarseNanoTime() the system time source's coarse clock} all the same
	 */
	void eventAt(RetryEventType type, int attempt, @Nullable Throwable failure, long delayNanos, long nowNanos) {
		long time = this.coarse ? TimeSource.SYSTEM.coarseNanoTime()
				: (nowNanos != RetryRuntime.NOT_READ) ? nowNanos : this.timeSource.nanoTime();
		this.events.add(type, attempt, failure, delayNanos, time);
	}

	private synchronized long sum(int slot) {
		foldDeadThreads();
		long total = this.folded.get(slot);
		for (ThreadCounters block : this.blocks) {
			total += block.read(slot);
		}
		return total;
	}

	/**
	 * Folds the blocks of threads that have died into the base totals, so the list of blocks stays as
	 * long as the number of live threads. Safe because a dead thread no longer writes its block; runs
	 * under the reader lock so that no reader sees a block twice or not at all.
	 */
	private int foldDeadThreads() {
		int live = 0;
		for (ThreadCounters block : this.blocks) {
			if (block.isOwnerDead() && this.blocks.remove(block)) {
				for (int slot = 0; slot < ThreadCounters.COUNT; slot++) {
					this.folded.addAndGet(slot, block.read(slot));
				}
			}
			else {
				live++;
			}
		}
		return live;
	}

	@Override
	public long getSuccessfulCallsWithoutRetry() {
		return sum(ThreadCounters.SUCCESS_WITHOUT_RETRY) + sum(ThreadCounters.PLAIN_SUCCESSES);
	}

	@Override
	public long getSuccessfulCallsWithRetry() {
		return sum(ThreadCounters.SUCCESS_WITH_RETRY);
	}

	@Override
	public long getFailedCallsWithoutRetry() {
		return sum(ThreadCounters.FAILED_WITHOUT_RETRY);
	}

	@Override
	public long getFailedCallsWithRetry() {
		return sum(ThreadCounters.FAILED_WITH_RETRY);
	}

	@Override
	public long getAttempts() {
		return sum(ThreadCounters.ATTEMPTS) + sum(ThreadCounters.PLAIN_SUCCESSES);
	}

	@Override
	public long getRecoveries() {
		return sum(ThreadCounters.RECOVERIES);
	}

	@Override
	public long getCircuitOpenRejections() {
		return sum(ThreadCounters.CIRCUIT_REJECTIONS);
	}

	@Override
	public long getBudgetExhaustedRejections() {
		return sum(ThreadCounters.BUDGET_REJECTIONS);
	}

	@Override
	public long getDeadlineRejections() {
		return sum(ThreadCounters.DEADLINE_REJECTIONS);
	}

	@Override
	public long getDownstreamExhaustedRejections() {
		return sum(ThreadCounters.DOWNSTREAM_REJECTIONS);
	}

	@Override
	public long getListenerFailures() {
		return this.listenerFailures.sum();
	}

	@Override
	public List<RetryEvent> getRecentEvents() {
		return this.events.snapshot(this.name, this.timeSource.nanoTime(), this.timeSource.currentTimeMillis());
	}

	@Override
	public long getRecordedEvents() {
		return this.events.recorded();
	}

	@Override
	public long getHedgesStarted() {
		return this.hedgesStarted.sum();
	}

	@Override
	public long getHedgesWon() {
		return this.hedgesWon.sum();
	}

	@Override
	public long getHedgesLost() {
		return this.hedgesLost.sum();
	}

	@Override
	public long getHedgesCancelled() {
		return this.hedgesCancelled.sum();
	}

	@Override
	public long getHedgesRefused() {
		return this.hedgesRefused.sum();
	}

	@Override
	public String toString() {
		return "RetryMetrics[successfulWithoutRetry=" + getSuccessfulCallsWithoutRetry() + ", successfulWithRetry="
				+ getSuccessfulCallsWithRetry() + ", failedWithoutRetry=" + getFailedCallsWithoutRetry()
				+ ", failedWithRetry=" + getFailedCallsWithRetry() + ", attempts=" + getAttempts() + "]";
	}

}
