package dev.retrykit.scheduler;

import java.util.concurrent.locks.LockSupport;

/**
 * What the timer thread of a {@link TimingWheelScheduler} runs: a pass, then a park until the next
 * tick, until the scheduler stops. A pass that throws is counted and logged once, and the thread goes
 * on a tick later; only {@link #MAX_CONSECUTIVE_FAILURES} failing passes in a row make it give up,
 * which {@linkplain TimingWheelScheduler#fail fails} the scheduler so that nothing waits on a timer
 * that no longer runs.
 */
final class TimerThreadLoop implements Runnable {

	/**
	 * Passes in a row that may fail before the timer thread gives up: about ten seconds at the default
	 * tick, long enough to ride out a burst of memory pressure, short enough that a broken clock does not
	 * leave work accepted that never fires.
	 */
	static final int MAX_CONSECUTIVE_FAILURES = 1000;

	private static final System.Logger LOGGER = System.getLogger(TimingWheelScheduler.class.getName());

	private final TimingWheelScheduler scheduler;

	TimerThreadLoop(TimingWheelScheduler scheduler) {
		this.scheduler = scheduler;
	}

	@Override
	public void run() {
		try {
			driveUntilStopped();
		}
		catch (Throwable ex) {
			// Containing a failure failed too: whatever happens, the scheduler must not look alive.
			this.scheduler.fail(ex);
		}
	}

	private void driveUntilStopped() {
		boolean started = false;
		int consecutiveFailures = 0;
		while (!this.scheduler.isStopped()) {
			try {
				if (!started) {
					this.scheduler.skipTicksBeforeStart();
					started = true;
				}
				long wait = this.scheduler.drivePass();
				consecutiveFailures = 0;
				if (wait > 0 && !this.scheduler.isStopped()) {
					LockSupport.parkNanos(this.scheduler, wait);
				}
			}
			catch (Throwable ex) {
				this.scheduler.countTimerFailure();
				if (++consecutiveFailures >= MAX_CONSECUTIVE_FAILURES) {
					this.scheduler.fail(ex);
					return;
				}
				if (consecutiveFailures == 1) {
					LOGGER.log(System.Logger.Level.ERROR, "Timer thread of " + this.scheduler + " failed; it goes on", ex);
				}
				LockSupport.parkNanos(this.scheduler, this.scheduler.tickNanos());
			}
			// Nobody should interrupt the timer; a pending interrupt would make parkNanos spin.
			Thread.interrupted();
		}
	}

}
