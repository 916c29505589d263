package dev.retrykit.cluster;

import java.lang.System.Logger.Level;
import java.time.Duration;

import dev.retrykit.spi.TimeSource;
import dev.retrykit.text.Durations;
import org.jspecify.annotations.Nullable;

/**
 * What a replica knows of its engine's reach, and the story the log tells of it: one warning when a spell
 * of unreachability begins, one line when it ends, nothing in between.
 *
 * <p>A spell begins with the first operation that failed or timed out while none was open. The engine
 * is marked reachable again only by a successful probe ({@link #probed}), never by an operation that was
 * in flight and answered late: an engine that answers some operations and not others (a frozen member
 * that owns part of the data) would otherwise flip between reachable and unreachable and warn at every
 * flip. The spell ends at a synchronisation that reached the engine once the engine has answered everything
 * for the settle time (at least two synchronisations in a row with no operation failing in between,
 * {@link #settled}); a failure meanwhile keeps it open, without a new warning. So a busy machine whose
 * operations now and then miss the timeout makes one spell while it stays busy, not a pair of lines each time.
 *
 * <p>Thread-safe: the flag is volatile, the spell's state is guarded by this object.
 */
final class EngineReach {

	private static final System.Logger LOGGER = System.getLogger(RetryCluster.class.getName());

	private final TimeSource timeSource;

	private final long settleNanos;

	private volatile boolean reachable = true;

	/** When an operation last failed. Guarded by this. */
	private long lastFailureNanos;

	/** When the engine last answered an operation, on {@link TimeSource#nanoTime()}; {@link #NEVER} before. */
	private volatile long lastAnswerNanos = NEVER;

	private static final long NEVER = Long.MIN_VALUE;

	/** When the open spell began, or {@link #NEVER} when none is open. Guarded by this. */
	private long spellStartNanos = NEVER;

	/** Fallbacks counted during the open spell. Guarded by this. */
	private long spellFallbacks;

	/** Whether a synchronisation reached the engine since the spell began with no failure after it. Guarded by this. */
	private boolean quietSync;

	/** Whether an operation failed since the last synchronisation that reached the engine. Guarded by this. */
	private boolean failedSinceSync;

	/**
	 * @param timeSource the clock of spells and staleness
	 * @param settleNanos how long the engine must answer everything before a spell ends
	 */
	EngineReach(TimeSource timeSource, long settleNanos) {
		this.timeSource = timeSource;
		this.settleNanos = settleNanos;
	}

	/** {@return whether operations should try the engine; false from a failure until a probe answers} */
	boolean isReachable() {
		return this.reachable;
	}

	/** An operation answered in time. */
	void answered() {
		this.lastAnswerNanos = this.timeSource.nanoTime();
	}

	/** A probe answered in time: the engine is tried again. */
	void probed() {
		answered();
		this.reachable = true;
	}

	/**
	 * An operation failed or timed out: the engine is marked unreachable and, when no spell is open, one begins
	 * and is logged.
	 */
	void failed(Throwable cause) {
		this.reachable = false;
		boolean begins;
		synchronized (this) {
			this.failedSinceSync = true;
			this.quietSync = false;
			this.spellFallbacks++;
			this.lastFailureNanos = this.timeSource.nanoTime();
			begins = this.spellStartNanos == NEVER;
			if (begins) {
				this.spellStartNanos = this.lastFailureNanos;
				this.spellFallbacks = 1;
			}
		}
		if (begins) {
			LOGGER.log(Level.WARNING, "The retry cluster's engine is unreachable or slower than the timeout (" + cause
					+ "); going on with local state until it is back (logged once until it is)");
		}
	}

	/** An operation fell back at once because the engine is marked unreachable. */
	synchronized void fellBack() {
		if (this.spellStartNanos != NEVER) {
			this.spellFallbacks++;
		}
	}

	/**
	 * A synchronisation reached the engine and wrote back what it could. Ends the open spell when the one
	 * before reached it too and nothing failed since, and logs it.
	 * @param writeBack what the synchronisation wrote back, for the log line
	 * @return the spell that ended, or {@code null} when none did
	 */
	@Nullable Spell settled(String writeBack) {
		Spell ended;
		synchronized (this) {
			if (this.spellStartNanos == NEVER) {
				this.failedSinceSync = false;
				return null;
			}
			long now = this.timeSource.nanoTime();
			if (!this.quietSync || this.failedSinceSync || now - this.lastFailureNanos < this.settleNanos) {
				// The first quiet synchronisation, one after a failure, or too soon after one: the spell goes on.
				this.quietSync = !this.failedSinceSync;
				this.failedSinceSync = false;
				return null;
			}
			ended = new Spell(Duration.ofNanos(now - this.spellStartNanos), this.spellFallbacks);
			this.spellStartNanos = NEVER;
			this.quietSync = false;
			this.failedSinceSync = false;
		}
		LOGGER.log(Level.INFO, "The retry cluster's engine is reachable again after " + Durations.approximate(ended.away())
				+ " away (" + ended.fallbacks() + ((ended.fallbacks() == 1) ? " operation" : " operations")
				+ " used local state meanwhile); " + writeBack);
		return ended;
	}

	/**
	 * {@return how long since the engine last answered while it is marked unreachable, or {@code null} while it is
	 * reachable (or has never answered)}
	 */
	@Nullable Duration unansweredFor() {
		long last = this.lastAnswerNanos;
		if (this.reachable || last == NEVER) {
			return null;
		}
		return Duration.ofNanos(Math.max(0, this.timeSource.nanoTime() - last));
	}

	/**
	 * A spell of unreachability that ended.
	 * @param away from its first failure to the synchronisation that ended it
	 * @param fallbacks operations that used local state during it
	 */
	record Spell(Duration away, long fallbacks) {
	}

}
