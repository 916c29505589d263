package dev.retrykit.internal;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The adaptive hedging delay of an instance: the configured quantile of its recent successful calls'
 * latencies (from the first copy's start to the accepted result; why the call's and not the winning
 * copy's, see {@code HedgeRace.act}), clamped to [min, max]; the max until {@link #MIN_SAMPLES} were
 * seen. "Recent" is the last {@link #WINDOW} samples that are at most {@link #MAX_AGE_NANOS} old (the
 * newest {@link #MIN_SAMPLES} always count): the window decays with time, so a quiet instance does not
 * hedge on the latency of an hour ago.
 *
 * <p>Recording is lock-free and allocates nothing: one {@code getAndIncrement} for a slot and two
 * stores. The quantile is worked out again (a copy and a selection over the window, a few
 * microseconds) every {@link #REFRESH_EVERY} samples by the thread whose sample completes them, and at
 * each pass of the hedging timer that finds new samples; so the delay lags a latency shift by at most
 * {@value #REFRESH_EVERY} calls once the shifted calls reach the quantile's share of the window. While
 * it lags, {@link HedgeLoad} bounds the copies. Thread-safe.
 */
final class HedgeLatency {

	/** Samples in the window: a power of two. */
	static final int WINDOW = 1024;

	/** Samples needed before the quantile is trusted: until then the delay is the max. */
	static final int MIN_SAMPLES = 100;

	/** The delay is worked out again after this many samples (a power of two). */
	static final int REFRESH_EVERY = 64;

	/** Samples older than this leave the window (beyond the newest {@link #MIN_SAMPLES}): 10 s. */
	static final long MAX_AGE_NANOS = 10_000_000_000L;

	private final AtomicLongArray samples = new AtomicLongArray(WINDOW);

	private final AtomicLongArray times = new AtomicLongArray(WINDOW);

	private final AtomicLong recorded = new AtomicLong();

	private final double quantile;

	private final long minNanos;

	private final long maxNanos;

	/** The current delay, read by every hedged call that goes async. */
	private volatile long delayNanos;

	/** Guarded by {@code this}: the count of samples the current delay was worked out from, and the scratch copy. */
	private long refreshedAt;

	private final long[] scratch = new long[WINDOW];

	HedgeLatency(double quantile, long minNanos, long maxNanos) {
		this.quantile = quantile;
		this.minNanos = minNanos;
		this.maxNanos = maxNanos;
		this.delayNanos = maxNanos;
	}

	/** @return whether {@code other} works its delay out as this one does, so that it may carry this one's samples on */
	boolean sameRule(double quantile, long minNanos, long maxNanos) {
		return this.quantile == quantile && this.minNanos == minNanos && this.maxNanos == maxNanos;
	}

	/** @return the delay between copies now */
	long delayNanos() {
		return this.delayNanos;
	}

	/** @return the samples recorded since the instance started */
	long recorded() {
		return this.recorded.get();
	}

	/** Records a successful call's latency, which ended at {@code nowNanos}. */
	void record(long latencyNanos, long nowNanos) {
		long index = this.recorded.getAndIncrement();
		int slot = (int) index & (WINDOW - 1);
		this.times.setRelease(slot, nowNanos);
		this.samples.setRelease(slot, Math.max(0, latencyNanos));
		long count = index + 1;
		if (count == MIN_SAMPLES || (count >= MIN_SAMPLES && (count & (REFRESH_EVERY - 1)) == 0)) {
			refresh(nowNanos);
		}
	}

	/** Works the delay out again from the window, if samples came since it last was. */
	synchronized void refresh(long nowNanos) {
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
		int kept = 0;
		for (int age = 0; age < size; age++) {
			int slot = (int) (count - 1 - age) & (WINDOW - 1);
			if (age >= MIN_SAMPLES && nowNanos - this.times.getAcquire(slot) > MAX_AGE_NANOS) {
				break;
			}
			this.scratch[kept++] = this.samples.getAcquire(slot);
		}
		int rank = Math.max(0, Math.min(kept - 1, (int) Math.ceil(this.quantile * kept) - 1));
		long at = select(this.scratch, kept, rank);
		this.delayNanos = Math.max(this.minNanos, Math.min(this.maxNanos, at));
	}

	/** The {@code rank}-th smallest of {@code values[0, size)} (quickselect; reorders them). */
	static long select(long[] values, int size, int rank) {
		int low = 0;
		int high = size - 1;
		while (low < high) {
			long pivot = values[(low + high) >>> 1];
			int i = low;
			int j = high;
			while (i <= j) {
				while (values[i] < pivot) {
					i++;
				}
				while (values[j] > pivot) {
					j--;
				}
				if (i <= j) {
					long swap = values[i];
					values[i] = values[j];
					values[j] = swap;
					i++;
					j--;
				}
			}
			if (rank <= j) {
				high = j;
			}
			else if (rank >= i) {
				low = i;
			}
			else {
				return values[rank];
			}
		}
		return values[rank];
	}

}
