package dev.retrykit.cluster;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.retrykit.circuit.CircuitBreaker;
import dev.retrykit.circuit.CircuitState;
import dev.retrykit.circuit.CircuitStateListener;
import dev.retrykit.spi.CircuitSignal;
import dev.retrykit.spi.ClusterEngine;
import dev.retrykit.spi.TimeSource;

/**
 * Ties one replica's circuit breaker to the same breaker on the other replicas. Manual opening and
 * closing (a transition from open to closed is only ever manual) are sent to all; an opening by the
 * breaker's own trip expression is sent as a trip, and a replica opens on trips once {@code quorum}
 * replicas (itself included) have tripped within the breaker's open timeout. Transitions applied from
 * another replica are not sent back. The breaker's calls never wait for the engine: sending is
 * asynchronous. Thread-safe.
 */
final class SharedCircuit implements CircuitStateListener {

	/** Set while this thread applies a transition that came from another replica. */
	private static final ThreadLocal<Boolean> APPLYING = new ThreadLocal<>();

	private final CircuitBreaker breaker;

	private final int quorum;

	private final String replica;

	private final ClusterEngine engine;

	private final EngineCalls calls;

	private final TimeSource timeSource;

	private final long timeoutNanos;

	/** When each replica last tripped, in this replica's nanoseconds. */
	private final Map<String, Long> trips = new ConcurrentHashMap<>();

	SharedCircuit(CircuitBreaker breaker, int quorum, String replica, ClusterEngine engine, EngineCalls calls,
			TimeSource timeSource) {
		this.breaker = breaker;
		this.quorum = quorum;
		this.replica = replica;
		this.engine = engine;
		this.calls = calls;
		this.timeSource = timeSource;
		this.timeoutNanos = breaker.getConfig().getTimeout().toNanos();
	}

	int quorum() {
		return this.quorum;
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
				this.trips.put(this.replica, this.timeSource.nanoTime());
			}
		}
		else if (to == CircuitState.CLOSED && from == CircuitState.OPEN) {
			kind = CircuitSignal.Kind.CLOSE;
			this.trips.clear();
		}
		else {
			return;
		}
		CircuitSignal signal = new CircuitSignal(breaker.getName(), kind, this.replica);
		this.calls.send(() -> this.engine.publishCircuit(signal));
	}

	/** Applies a transition sent by a replica; its own signals come back too and are ignored. */
	void receive(CircuitSignal signal) {
		if (signal.replica().equals(this.replica)) {
			return;
		}
		APPLYING.set(Boolean.TRUE);
		try {
			switch (signal.kind()) {
				case FORCE_OPEN -> this.breaker.forceOpen();
				case CLOSE -> {
					this.trips.clear();
					this.breaker.close();
				}
				case TRIP -> {
					long now = this.timeSource.nanoTime();
					this.trips.put(signal.replica(), now);
					this.trips.values().removeIf(at -> now - at > this.timeoutNanos);
					if (this.trips.size() >= this.quorum) {
						this.breaker.tripOpen();
					}
				}
			}
		}
		finally {
			APPLYING.remove();
		}
	}

}
