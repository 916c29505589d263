package dev.retrykit.internal;

import java.util.function.LongSupplier;

/**
 * The extra load a hedging instance may send ({@code maxExtraLoad}, Finagle's
 * {@code BackupRequestFilter}): copies after the first stay within {@code maxExtraLoad} of the
 * instance's calls over a sliding window of {@value #SLOTS} one-second slots, plus a reserve of one
 * copy per second ({@value #SLOTS} in the window, which a quiet instance may spend at once). On top
 * of the window's bound, a bucket paces them: each call puts {@code maxExtraLoad} in, each second one
 * more, each copy takes one out, and it keeps at most {@value #BURST} (in proportion above the default
 * share of 0.1: 100 at 1.0) of what is older than 20 ms; so the share a steady state leaves unspent
 * does not pile up, and the copies of any run of calls stay within {@code maxExtraLoad}
 * of them plus that, also the calls right after a latency shift, while an adaptive delay catches up.
 *
 * <p>The calls are read from the instance's counters (started copies of the first kind), not counted
 * here, so that a call that succeeds at once costs nothing more; they are read at most once per
 * millisecond, and again before a copy is refused. Asked only when a copy after the first is about to start, under this object's lock
 * (some tens of nanoseconds). Thread-safe.
 */
final class HedgeLoad {

	/** One-second slots in the window. */
	static final int SLOTS = 10;

	static final long SLOT_NANOS = 1_000_000_000L;

	/** Copies per second allowed whatever the traffic. */
	static final int RESERVE_PER_SECOND = 1;

	/** The most the pacing bucket holds at the default {@code maxExtraLoad} (0.1), and at least. */
	static final double BURST = RESERVE_PER_SECOND * SLOTS;

	private static final long READ_EVERY_NANOS = 1_000_000L;

	/** How long the share of calls counted together stays on top of the capped stock: 20 ms (a fan-out's hedges fall due within it). */
	static final long RECENT_NANOS = 20_000_000L;

	private final double maxExtraLoad;

	/** The instance's calls so far. */
	private final LongSupplier calls;

	/** Per slot (second modulo SLOTS + 1): which second it holds, the calls counted when it began, its copies. */
	private final long[] second = new long[SLOTS + 1];

	private final long[] callsAtStart = new long[SLOTS + 1];

	private final long[] copies = new long[SLOTS + 1];

	private long latestSecond = Long.MIN_VALUE;

	private long callsRead;

	private long readAt = Long.MIN_VALUE;

	/** The pacing bucket: its copies, the calls and the time it was last filled up to. */
	private double bucket;

	/** The most the bucket holds: {@link #BURST}, in proportion to {@code maxExtraLoad} above 0.1. */
	private final double burst;

	private long bucketCalls;

	private long bucketNanos = Long.MIN_VALUE;

	/** The share of the calls counted since {@link #recentSince}, not capped yet. */
	private double recent;

	private long recentSince;

	HedgeLoad(double maxExtraLoad, LongSupplier calls) {
		this.maxExtraLoad = maxExtraLoad;
		this.calls = calls;
		this.burst = BURST * Math.max(1, maxExtraLoad / 0.1);
		this.bucket = this.burst;
	}

	/**
	 * Takes room for one copy after the first, if the bound allows it.
	 * @param nowNanos the time now
	 * @return whether the copy may start
	 */
	synchronized boolean tryAcquire(long nowNanos) {
		long now = Math.floorDiv(nowNanos, SLOT_NANOS);
		boolean read = nowNanos - this.readAt >= READ_EVERY_NANOS || now != this.latestSecond;
		if (read) {
			readCalls(nowNanos);
		}
		roll(now);
		boolean allowed = allows(now, nowNanos);
		if (!allowed && !read) {
			// Short on room: count the calls since the last reading before refusing (a burst of calls).
			readCalls(nowNanos);
			allowed = allows(now, nowNanos);
		}
		if (allowed) {
			spend();
			this.copies[slot(now)]++;
		}
		return allowed;
	}

	private void readCalls(long nowNanos) {
		this.callsRead = this.calls.getAsLong();
		this.readAt = nowNanos;
	}

	/** Whether the window and the bucket have room for one more copy now. */
	private boolean allows(long now, long nowNanos) {
		long oldest = now - SLOTS + 1;
		long baseline = this.callsRead;
		long inWindow = 0;
		for (int i = 0; i <= SLOTS; i++) {
			long held = this.second[i];
			if (held >= oldest && held <= now) {
				inWindow += this.copies[i];
				baseline = Math.min(baseline, this.callsAtStart[i]);
			}
		}
		double windowBound = this.maxExtraLoad * Math.max(0, this.callsRead - baseline) + RESERVE_PER_SECOND * SLOTS;
		fill(nowNanos);
		return inWindow + 1 <= windowBound && bucketAllows();
	}

	/**
	 * Fills the bucket with the calls and the time since it was last filled. The share of the calls counted
	 * lately ({@link #RECENT_NANOS}) is kept apart, on top of the capped stock, so that a fan-out of calls
	 * started together may hedge its own share; only older share is capped, so unspent share does not
	 * pile up. Either way a copy is paid for by a call's share, a second, or the stock.
	 */
	private void fill(long nowNanos) {
		if (this.bucketNanos == Long.MIN_VALUE) {
			this.bucketNanos = nowNanos;
			this.recentSince = nowNanos;
			this.bucketCalls = this.callsRead;
		}
		double refill = RESERVE_PER_SECOND * (double) Math.max(0, nowNanos - this.bucketNanos) / SLOT_NANOS;
		if (nowNanos - this.recentSince >= RECENT_NANOS) {
			this.bucket = Math.min(this.burst, this.bucket + this.recent + refill);
			this.recent = 0;
			this.recentSince = nowNanos;
		}
		else {
			this.bucket = Math.min(this.burst, this.bucket + refill);
		}
		this.recent += this.maxExtraLoad * Math.max(0, this.callsRead - this.bucketCalls);
		this.bucketCalls = this.callsRead;
		this.bucketNanos = nowNanos;
	}

	/** Whether the bucket pays for one copy now. */
	private boolean bucketAllows() {
		return this.recent + this.bucket >= 1;
	}

	/** Pays for one copy: from the recent share first. */
	private void spend() {
		double fromRecent = Math.min(1, this.recent);
		this.recent -= fromRecent;
		this.bucket -= 1 - fromRecent;
	}

	/** Opens the slots of the seconds since the latest one (at most a window's worth), each at the calls read now. */
	private void roll(long now) {
		if (now == this.latestSecond) {
			return;
		}
		long from = (this.latestSecond == Long.MIN_VALUE || now - this.latestSecond > SLOTS + 1) ? now - SLOTS
				: this.latestSecond + 1;
		for (long s = Math.max(from, now - SLOTS); s <= now; s++) {
			int slot = slot(s);
			this.second[slot] = s;
			// Calls of a second with no copy are counted from its end, not its start: fewer, so the bound errs low.
			this.callsAtStart[slot] = this.callsRead;
			this.copies[slot] = 0;
		}
		if (this.latestSecond == Long.MIN_VALUE) {
			// A new instance: its calls so far count as the window's (it has no older second to tell apart).
			for (int i = 0; i <= SLOTS; i++) {
				this.callsAtStart[i] = 0;
			}
		}
		this.latestSecond = now;
	}

	private static int slot(long second) {
		return (int) Math.floorMod(second, (long) SLOTS + 1);
	}

}
