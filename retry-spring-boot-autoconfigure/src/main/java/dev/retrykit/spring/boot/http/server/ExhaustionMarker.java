package dev.retrykit.spring.boot.http.server;

import java.util.concurrent.atomic.AtomicReference;

import org.jspecify.annotations.Nullable;

/**
 * What one server request learnt of the retrykit calls made while it ran: the name of the first instance whose call
 * gave up on a failure it would otherwise have retried (ran out of attempts, or was refused by a budget, a circuit,
 * a deadline or an exhausted downstream) and ended the call with that failure. The request's error response then
 * tells its caller not to retry ({@code X-Retry-Exhausted: <instance>}): the retries were spent at this layer.
 *
 * <p>The filters make one per request. It reaches the calls made during the request in two ways: on the request's
 * thread through {@link #enter()} (servlet requests, and handlers that run where the {@code WebFilter} subscribed),
 * and in the Reactor {@code Context} under the key {@code ExhaustionMarker.class} (WebFlux). The
 * {@link ExhaustionRecordingListener} takes it from there when a call opens, keeps it in the call's context, and
 * records into it when the call closes, whatever thread that happens on. Thread-safe.
 */
public final class ExhaustionMarker {

	private static final ThreadLocal<@Nullable ExhaustionMarker> CURRENT = new ThreadLocal<>();

	private final AtomicReference<@Nullable String> exhausted = new AtomicReference<>();

	/** {@return the marker of the request this thread works for, or {@code null} outside any} */
	public static @Nullable ExhaustionMarker current() {
		return CURRENT.get();
	}

	/**
	 * Makes this marker the thread's until the returned scope is closed (on the same thread, in try-with-resources).
	 * @return the scope, which restores the marker that was current before
	 */
	public Scope enter() {
		ExhaustionMarker previous = CURRENT.get();
		CURRENT.set(this);
		return new Scope(previous);
	}

	/**
	 * Records that a call of {@code instance} gave up; the first instance recorded is kept.
	 * @param instance the instance's name
	 */
	public void record(String instance) {
		this.exhausted.compareAndSet(null, instance);
	}

	/** {@return the first instance whose call gave up during the request, or {@code null} when none did} */
	public @Nullable String exhaustedInstance() {
		return this.exhausted.get();
	}

	@Override
	public String toString() {
		String instance = this.exhausted.get();
		return "ExhaustionMarker[" + ((instance != null) ? "exhausted: " + instance : "none") + "]";
	}

	/** The time a marker is the thread's; closing it restores the one before. */
	public static final class Scope implements AutoCloseable {

		private final @Nullable ExhaustionMarker previous;

		private boolean closed;

		private Scope(@Nullable ExhaustionMarker previous) {
			this.previous = previous;
		}

		/** Restores the marker that was current when this scope was entered; a second close does nothing. */
		@Override
		public void close() {
			if (this.closed) {
				return;
			}
			this.closed = true;
			if (this.previous == null) {
				CURRENT.remove();
			}
			else {
				CURRENT.set(this.previous);
			}
		}

	}

}
