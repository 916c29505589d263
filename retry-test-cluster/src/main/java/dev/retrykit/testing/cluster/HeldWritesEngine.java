package dev.retrykit.testing.cluster;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import java.util.concurrent.locks.LockSupport;

import dev.retrykit.spi.ClusterEngine;
import org.jspecify.annotations.Nullable;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An engine under test as a member that freezes and resumes (SIGSTOP, SIGCONT) shows it to a replica:
 * while {@link #down} every operation fails; while {@link #hold} is set, a compare-and-set waits for it,
 * whatever interrupts it (as Hazelcast's invocations wait), and is then sent to the engine, which applies
 * or refuses it on what it stores by then. Thread-safe.
 */
final class HeldWritesEngine implements ClusterEngine {

	private final ClusterEngine engine;

	volatile boolean down;

	volatile @Nullable CountDownLatch hold;

	private volatile @Nullable Thread heldWriter;

	private final AtomicInteger heldWritesDone = new AtomicInteger();

	/** Bumped when the held writer enters and when it leaves an operation of the engine under test: odd inside. */
	private final AtomicLong writerOperations = new AtomicLong();

	HeldWritesEngine(ClusterEngine engine) {
		this.engine = engine;
	}

	private void reach() {
		if (this.down) {
			throw new IllegalStateException("the engine's member is frozen");
		}
	}

	/**
	 * Releases the held compare-and-sets and waits (at most {@code patienceNanos}) until the thread that
	 * sent them has gone back to its pool: whatever the operation did after, it has done.
	 */
	void release(CountDownLatch held, long patienceNanos) {
		Thread writer = this.heldWriter;
		assertThat(writer).as("a compare-and-set was held").isNotNull();
		held.countDown();
		long deadline = System.nanoTime() + patienceNanos;
		while (this.heldWritesDone.get() == 0 && System.nanoTime() < deadline) {
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
		}
		assertThat(this.heldWritesDone.get()).as("the held compare-and-set was applied or refused").isPositive();
		while (!parkedOutsideTheEngine(writer) && System.nanoTime() < deadline) {
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
		}
		assertThat(parkedOutsideTheEngine(writer)).as("the engine's thread is back in its pool: %s", writer.getState())
			.isTrue();
	}

	/**
	 * Whether the writer waits, and not in an operation of the engine under test (an engine's client parks
	 * its caller while an operation is out): then it waits for its next task.
	 */
	private boolean parkedOutsideTheEngine(Thread writer) {
		long before = this.writerOperations.get();
		Thread.State state = writer.getState();
		long after = this.writerOperations.get();
		return state == Thread.State.TERMINATED || (before == after && before % 2 == 0
				&& (state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING));
	}

	@Override
	public String engineName() {
		return this.engine.engineName();
	}

	@Override
	public int members() {
		reach();
		return this.engine.members();
	}

	@Override
	public String localMember() {
		reach();
		return this.engine.localMember();
	}

	@Override
	public byte @Nullable [] getContext(String cache, String key) {
		reach();
		return tracked(() -> this.engine.getContext(cache, key));
	}

	@Override
	public boolean compareAndSetContext(String cache, String key, byte @Nullable [] expected, byte @Nullable [] next) {
		reach();
		CountDownLatch held = this.hold;
		if (held == null) {
			return tracked(() -> this.engine.compareAndSetContext(cache, key, expected, next));
		}
		this.heldWriter = Thread.currentThread();
		boolean interrupted = false;
		while (true) {
			try {
				held.await();
				break;
			}
			catch (InterruptedException ex) {
				interrupted = true;
			}
		}
		try {
			return tracked(() -> this.engine.compareAndSetContext(cache, key, expected, next));
		}
		finally {
			this.heldWritesDone.incrementAndGet();
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/** Runs an operation of the engine under test; the held writer's are counted in and out. */
	private <T> T tracked(Supplier<T> operation) {
		if (Thread.currentThread() != this.heldWriter) {
			return operation.get();
		}
		this.writerOperations.incrementAndGet();
		try {
			return operation.get();
		}
		finally {
			this.writerOperations.incrementAndGet();
		}
	}

	@Override
	public void removeContext(String cache, String key) {
		reach();
		this.engine.removeContext(cache, key);
	}

	@Override
	public int contextCount(String cache) {
		reach();
		return this.engine.contextCount(cache);
	}

	@Override
	public List<StoredContext> contexts(String cache, int limit) {
		reach();
		return this.engine.contexts(cache, limit);
	}

	@Override
	public void clearContexts(String cache) {
		reach();
		this.engine.clearContexts(cache);
	}

	@Override
	public long contextEvictions(String cache) {
		reach();
		return this.engine.contextEvictions(cache);
	}

	@Override
	public long exchangeBudget(String budget, long deltaMilliTokens, long maxMilliTokens) {
		reach();
		return this.engine.exchangeBudget(budget, deltaMilliTokens, maxMilliTokens);
	}

	@Override
	public void publishCircuit(String message) {
		reach();
		this.engine.publishCircuit(message);
	}

	@Override
	public AutoCloseable subscribeCircuits(CircuitMessageReceiver receiver) {
		reach();
		return this.engine.subscribeCircuits(receiver);
	}

	@Override
	public void storeCircuitState(String circuit, @Nullable String state) {
		reach();
		this.engine.storeCircuitState(circuit, state);
	}

	@Override
	public @Nullable String circuitState(String circuit) {
		reach();
		return this.engine.circuitState(circuit);
	}

}
