package dev.retrykit.cluster;

import java.lang.System.Logger.Level;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.retrykit.circuit.CircuitBreaker;
import dev.retrykit.spi.CircuitSignal;
import dev.retrykit.spi.ClusterEngine;
import dev.retrykit.spi.TimeSource;
import org.jspecify.annotations.Nullable;

/**
 * The circuit breakers a {@link RetryCluster} shares, one {@link SharedCircuit} per breaker, and the one
 * subscription to the engine's circuit channel that delivers the other replicas' signals to them: a signal
 * that cannot be decoded, or names no circuit shared here, is dropped and counted. Thread-safe: attaching and
 * detaching hold the map's lock; a signal is routed by name without it.
 */
final class SharedCircuits {

	private static final System.Logger LOGGER = System.getLogger(SharedCircuits.class.getName());

	private final ClusterEngine engine;

	private final EngineCalls calls;

	private final ClusterCounters counters;

	private final String replicaId;

	private final TimeSource timeSource;

	/** The shared breakers by identity; its lock guards attaching and detaching. */
	private final Map<CircuitBreaker, SharedCircuit> byBreaker = new IdentityHashMap<>();

	/** The same, by name, for the signals. */
	private final Map<String, SharedCircuit> byName = new ConcurrentHashMap<>();

	private volatile @Nullable String localMember;

	/** The circuit channel's subscription, once made; guarded by {@link #byBreaker}. */
	private @Nullable AutoCloseable subscription;

	SharedCircuits(ClusterEngine engine, EngineCalls calls, ClusterCounters counters, String replicaId,
			TimeSource timeSource) {
		this.engine = engine;
		this.calls = calls;
		this.counters = counters;
		this.replicaId = replicaId;
		this.timeSource = timeSource;
	}

	/** Shares a breaker, replacing a shared one of the same name; subscribes to the channel if not yet. */
	void attach(CircuitBreaker breaker, int quorum) {
		synchronized (this.byBreaker) {
			if (this.byBreaker.containsKey(breaker)) {
				return;
			}
			SharedCircuit previous = this.byName.get(breaker.getName());
			if (previous != null) {
				detach(previous);
			}
			SharedCircuit shared = new SharedCircuit(breaker, quorum, this.replicaId, this::localMember, this.engine,
					this.calls, this.timeSource);
			this.byBreaker.put(breaker, shared);
			this.byName.put(breaker.getName(), shared);
			breaker.addStateListener(shared);
			subscribe();
			shared.reconcile(this.counters);
		}
	}

	/** Stops sharing the breaker shared under {@code name} unless it is {@code current} (a live change replaced it). */
	void detachReplaced(String name, @Nullable CircuitBreaker current) {
		synchronized (this.byBreaker) {
			SharedCircuit shared = this.byName.get(name);
			if (shared != null && shared.breaker() != current) {
				detach(shared);
			}
		}
	}

	private void detach(SharedCircuit shared) {
		shared.breaker().removeStateListener(shared);
		this.byBreaker.remove(shared.breaker());
		this.byName.remove(shared.breaker().getName(), shared);
	}

	boolean isShared(CircuitBreaker breaker) {
		synchronized (this.byBreaker) {
			return this.byBreaker.containsKey(breaker);
		}
	}

	boolean isEmpty() {
		return this.byName.isEmpty();
	}

	/** Subscribes to the circuit channel if a breaker is shared and the subscription failed before. */
	void resubscribe() {
		synchronized (this.byBreaker) {
			if (!this.byBreaker.isEmpty()) {
				subscribe();
			}
		}
	}

	private void subscribe() {
		if (this.subscription == null) {
			this.subscription = this.calls.probe(() -> this.engine.subscribeCircuits(this::receive), () -> null);
		}
	}

	/** Reconciles every shared breaker's manual state with the one kept in the engine. */
	void reconcile() {
		for (SharedCircuit shared : this.byName.values()) {
			shared.reconcile(this.counters);
		}
	}

	/** This replica's id as the engine knows it: its own trips count under it, as the others' do under theirs. */
	private String localMember() {
		String member = this.localMember;
		if (member == null) {
			member = this.calls.call(this.engine::localMember, () -> null);
			this.localMember = member;
		}
		return (member != null) ? member : this.replicaId;
	}

	private void receive(@Nullable String message, String sender) {
		if (message == null) {
			this.counters.droppedSignal("not text", "");
			return;
		}
		CircuitSignal signal;
		try {
			signal = CircuitSignal.decode(message);
		}
		catch (IllegalArgumentException ex) {
			this.counters.droppedSignal(String.valueOf(ex.getMessage()), message);
			return;
		}
		SharedCircuit shared = this.byName.get(signal.circuit());
		if (shared == null) {
			this.counters.droppedSignal("no shared circuit of that name on this replica", message);
			return;
		}
		shared.receive(signal, sender, message, this.counters);
	}

	/** Unsubscribes from the circuit channel. */
	void close() {
		AutoCloseable open;
		synchronized (this.byBreaker) {
			open = this.subscription;
		}
		if (open != null) {
			try {
				open.close();
			}
			catch (Exception ex) {
				LOGGER.log(Level.DEBUG, "Closing the circuit subscription failed", ex);
			}
		}
	}

}
