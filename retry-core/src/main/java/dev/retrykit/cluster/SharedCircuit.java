package dev.retrykit.cluster;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import dev.retrykit.circuit.CircuitBreaker;
import dev.retrykit.circuit.CircuitState;
import dev.retrykit.circuit.CircuitStateListener;
import dev.retrykit.spi.CircuitSignal;
import dev.retrykit.spi.ClusterEngine;
import dev.retrykit.spi.TimeSource;
import org.jspecify.annotations.Nullable;

/**
 * Ties one replica's circuit breaker to the same breaker on the other replicas. Manual opening and
 * closing (a transition from open to closed is only ever manual) are sent to all and kept in the engine
 * as the circuit's manual state; an opening by the breaker's own trip expression is sent as a trip, and
 * a replica opens on trips once {@code quorum} distinct registered members (itself included), as the
 * engine identifies the senders, have tripped within the breaker's open timeout. A message the engine
 * could not attribute to a registered member ({@link CircuitSignal#UNREGISTERED_SENDER}) never counts
 * toward a quorum and never opens or closes the breaker: it is dropped and counted. Transitions applied
 * from another replica are not sent back. The breaker's calls never wait for the engine: sending is
 * asynchronous. A manual transition that could not be sent (the engine unreachable) is sent again by
 * {@link #reconcile(ClusterCounters)}, which otherwise applies the manual state kept in the engine: so a replica that
 * starts, restarts or comes back learns a forced-open circuit. Thread-safe.
 */
final class SharedCircuit implements CircuitStateListener {

	/** Set while this thread applies a transition that came from another replica or from the engine. */
	private static final ThreadLocal<Boolean> APPLYING = new ThreadLocal<>();

	private final CircuitBreaker breaker;

	private final int quorum;

	private final String replica;

	private final Supplier<String> localMember;

	private final ClusterEngine engine;

	private final EngineCalls calls;

	private final TimeSource timeSource;

	/** When each member last tripped, in this replica's nanoseconds. */
	private final Map<String, Long> trips = new ConcurrentHashMap<>();

	/** A manual transition made here that the engine has not stored yet, or {@code null}. */
	private volatile CircuitSignal.@Nullable Kind unsent;

	SharedCircuit(CircuitBreaker breaker, int quorum, String replica, Supplier<String> localMember, ClusterEngine engine,
			EngineCalls calls, TimeSource timeSource) {
		this.breaker = breaker;
		this.quorum = quorum;
		this.replica = replica;
		this.localMember = localMember;
		this.engine = engine;
		this.calls = calls;
		this.timeSource = timeSource;
	}

	int quorum() {
		return this.quorum;
	}

	CircuitBreaker breaker() {
		return this.breaker;
	}

	@Override
	public void onStateChange(CircuitBreaker breaker, CircuitState from, CircuitState to) {
		if (APPLYING.get() != null) {
			return;
		}
		CircuitSignal.Kind kind;
		if (to == CircuitState.OPEN) {
			kind = breaker.isForcedOpen() ? CircuitSignal.Kind.FORCE_OPEN : CircuitSignal.Kind.TRIP;
			if (kind == CircuitSignal.Kind.TRIP) {
				this.trips.put(this.localMember.get(), this.timeSource.nanoTime());
			}
		}
		else if (to == CircuitState.CLOSED && from == CircuitState.OPEN) {
			kind = CircuitSignal.Kind.CLOSE;
			this.trips.clear();
		}
		else {
			return;
		}
		if (kind == CircuitSignal.Kind.TRIP) {
			String message = new CircuitSignal(breaker.getName(), kind, this.replica).encode();
			this.calls.send(() -> this.engine.publishCircuit(message));
		}
		else {
			this.unsent = kind;
			sendManual(kind);
		}
	}

	/** Stores and sends a manual transition; it stays unsent until the engine took both. */
	private void sendManual(CircuitSignal.Kind kind) {
		String message = new CircuitSignal(this.breaker.getName(), kind, this.replica).encode();
		this.calls.send(() -> {
			this.engine.storeCircuitState(this.breaker.getName(), kind.name());
			this.engine.publishCircuit(message);
			if (this.unsent == kind) {
				this.unsent = null;
			}
		});
	}

	/**
	 * Applies a transition sent through the engine; this replica's own come back too and are ignored.
	 * @param signal the transition
	 * @param sender the sender as the engine identifies it
	 * @param message the message as received, for the log
	 * @param counters where a transition from an unregistered sender is counted
	 */
	void receive(CircuitSignal signal, String sender, String message, ClusterCounters counters) {
		if (signal.replica().equals(this.replica)) {
			return;
		}
		if (sender.isBlank() || CircuitSignal.UNREGISTERED_SENDER.equals(sender)) {
			counters.droppedSignal("the engine knows no registered member that sent it", message);
			return;
		}
		switch (signal.kind()) {
			case FORCE_OPEN -> apply(this.breaker::forceOpen);
			case CLOSE -> {
				this.trips.clear();
				apply(this.breaker::close);
			}
			case TRIP -> {
				long now = this.timeSource.nanoTime();
				long timeout = this.breaker.getConfig().getTimeout().toNanos();
				this.trips.put(sender, now);
				this.trips.values().removeIf(at -> now - at > timeout);
				if (this.trips.size() >= this.quorum) {
					apply(this.breaker::tripOpen);
				}
			}
		}
	}

	/**
	 * Brings the breaker and the engine's manual state together, when the breaker is first shared and
	 * whenever the engine answers again after a fault: a manual transition made here meanwhile is sent
	 * (the last one made anywhere wins); otherwise the manual state the engine keeps is applied. Waits for
	 * the engine at most its timeout.
	 * @param counters where a stored state that is not one this replica writes is counted
	 */
	void reconcile(ClusterCounters counters) {
		CircuitSignal.Kind mine = this.unsent;
		if (mine != null) {
			sendManual(mine);
			return;
		}
		String name = this.breaker.getName();
		String stored = this.calls.call(() -> this.engine.circuitState(name), () -> null);
		if (stored == null) {
			return;
		}
		if (CircuitSignal.Kind.FORCE_OPEN.name().equals(stored)) {
			if (!this.breaker.isForcedOpen()) {
				apply(this.breaker::forceOpen);
			}
		}
		else if (CircuitSignal.Kind.CLOSE.name().equals(stored)) {
			if (this.breaker.isForcedOpen()) {
				apply(this.breaker::close);
			}
		}
		else {
			counters.droppedSignal("stored state of circuit '" + ClusterCounters.printable(name) + "' is not one of "
					+ CircuitSignal.Kind.FORCE_OPEN + ", " + CircuitSignal.Kind.CLOSE, stored);
		}
	}

	private void apply(Runnable transition) {
		APPLYING.set(Boolean.TRUE);
		try {
			transition.run();
		}
		finally {
			APPLYING.remove();
		}
	}

}
