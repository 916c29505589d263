package dev.retrykit.internal;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The adaptive hedging delay of an instance: a sliding window of its last {@link #WINDOW} successful
 * async calls' latencies (from the first copy's start to the accepted result; why the call's and not the
 * winning copy's, see {@code HedgedCall.act}) and the configured quantile of them, clamped to [min, max]; the max until
 * {@link #MIN_SAMPLES} were seen.
 *
 * <p>Recording is lock-free and allocates nothing: one {@code getAndIncrement} for a slot and one
 * store. The quantile is worked out again (a copy and a sort of the window, some microseconds) once
 * every {@link #WINDOW} samples by the thread whose sample completes the window, and at each pass of
 * the hedging timer that finds new samples ({@link #refresh}); so it costs a recording thread about
 * 15 ns per sample on average, and the delay lags the latency by at most one window. Thread-safe.
 */
final class HedgeLatency {

	/** Samples in the window: a power of two. */
	static final int WINDOW = 1024;

	/** Samples needed before the quantile is trusted: until then the delay is the max. */
	static final int MIN_SAMPLES = 100;

	private final AtomicLongArray samples = new AtomicLongArray(WINDOW);

	private final AtomicLong recorded = new AtomicLong();

	private final double quantile;

	private final long minNanos;

	private final long maxNanos;

	/** The current delay, read by every hedged call that goes async. */
	private volatile long delayNanos;

	/** Guarded by {@code this}: the count of samples the current delay was worked out from, and the scratch copy. */
	private long refreshedAt;

	private final long[] sorted = new long[WINDOW];

	HedgeLatency(double quantile, long minNanos, long maxNanos) {
		this.quantile = quantile;
		this.minNanos = minNanos;
		this.maxNanos = maxNanos;
		this.delayNanos = maxNanos;
	}

	/** @return the delay between copies now */
	long delayNanos() {
		return this.delayNanos;
	}

	/** @return the samples recorded since the instance started */
	long recorded() {
		return this.recorded.get();
	}

	/** Records a successful attempt's latency. */
	void record(long latencyNanos) {
		long index = this.recorded.getAndIncrement();
		this.samples.setRelease((int) index & (WINDOW - 1), Math.max(0, latencyNanos));
		long count = index + 1;
		if (count == MIN_SAMPLES || (count & (WINDOW - 1)) == 0) {
			refresh();
		}
	}

	/** Works the delay out again from the window, if samples came since it last was. */
	synchronized void refresh() {
		long count = this.recorded.get();
		if (count == this.refreshedAt) {
			return;
		}
		this.refreshedAt = count;
		if (count < MIN_SAMPLES) {
			this.delayNanos = this.maxNanos;
			return;
		}
		int size = (int) Math.min(count, WINDOW);
		for (int i = 0; i < size; i++) {
			this.sorted[i] = this.samples.getAcquire(i);
		}
		Arrays.sort(this.sorted, 0, size);
		int rank = (int) Math.ceil(this.quantile * size) - 1;
		long at = this.sorted[Math.max(0, Math.min(size - 1, rank))];
		this.delayNanos = Math.max(this.minNanos, Math.min(this.maxNanos, at));
	}

}
