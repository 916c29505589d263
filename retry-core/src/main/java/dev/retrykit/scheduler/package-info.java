/**
 * The timing wheel: the default {@link dev.retrykit.spi.RetryScheduler},
 * {@link dev.retrykit.scheduler.TimingWheelScheduler}, a hashed timing wheel with one daemon timer thread
 * that hands every due task to an executor, so user code never runs on the timer thread. Scheduling
 * and cancelling are O(1) and lock-free, and a million pending tasks cost about 40 bytes each on top
 * of the tasks themselves. A manual mode drives the wheel by hand against an injected
 * {@link dev.retrykit.spi.TimeSource}, so tests run in virtual time without sleeping.
 *
 * <p>Public types say whether they are thread-safe; package-private types are internal.
 */
@NullMarked
package dev.retrykit.scheduler;

import org.jspecify.annotations.NullMarked;
