package dev.retrykit.cluster;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import dev.retrykit.RetryRegistry;
import dev.retrykit.RetryState;
import dev.retrykit.RetryTemplate;
import dev.retrykit.VirtualTime;
import dev.retrykit.backoff.BackoffPolicy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A write the caller gave up on at the engine's timeout keeps running on the engine's thread when the
 * engine's client does not heed the interrupt (Hazelcast's invocations do not), and its compare-and-set
 * can lose to a write-back made meanwhile that counted its failures already: it must not then apply them
 * again on the newer entry. This is how a frozen member (SIGSTOP, then SIGCONT) made a shared count read
 * 20 where 13 failures had happened ({@code ClusterFreezeUnderLoadIT}): the first write-back after the
 * freeze, 7 failures counted locally, was held past the timeout; the next one wrote them; the first then
 * lost its compare-and-set, read the entry again and added the 7 once more.
 */
class AbandonedWriteTests {

	private final FakeClusterEngine.Store store = new FakeClusterEngine.Store();

	private final FakeClusterEngine engine = new FakeClusterEngine(this.store);

	private final VirtualTime time = new VirtualTime();

	private final List<RetryCluster> opened = new ArrayList<>();

	@AfterEach
	void close() {
		this.opened.forEach(RetryCluster::close);
	}

	private RetryCluster replica() {
		RetryCluster cluster = RetryCluster.builder(this.engine).replicaId("a").timeout(Duration.ofMillis(100))
			.timeSource(this.time).build();
		this.opened.add(cluster);
		return cluster;
	}

	private RetryTemplate payments(RetryCluster cluster) {
		RetryRegistry registry = cluster.bind(RetryRegistry.builder().virtualTime(this.time))
			.instance("payments", null, config -> config.maxAttempts(1000).backoff(BackoffPolicy.none()))
			.build();
		cluster.attach(registry);
		return registry.template("payments");
	}

	/** Fails {@code times} payments of {@code key} while the engine is down: counted locally, owed by a write-back. */
	private void failWhileTheEngineIsDown(RetryTemplate payments, String key, int times) {
		this.engine.down = true;
		for (int i = 0; i < times; i++) {
			failOnce(payments, key);
		}
		this.engine.down = false;
	}

	private static void failOnce(RetryTemplate template, Object key) {
		assertThatExceptionOfType(IOException.class).isThrownBy(() -> template.execute(context -> {
			throw new IOException("broken");
		}, RetryState.of(key)));
	}

	private int storedCount(String key) {
		return SnapshotCodec.jdkValuesOnly().decode(this.store.contexts.get("payments/" + key)).getRetryCount();
	}

	/**
	 * Releases the operations {@link FakeClusterEngine#lateWrites} or {@link FakeClusterEngine#lateReads}
	 * held and waits (at most 10 s) until the thread that made them has gone back to the engine's pool:
	 * whatever the abandoned write did after its held operation, it has done.
	 */
	private void releaseHeld(CountDownLatch late) {
		Thread writer = this.engine.heldThread;
		assertThat(writer).as("an operation was held").isNotNull();
		late.countDown();
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (this.engine.heldDone.get() == 0 && System.nanoTime() < deadline) {
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
		}
		assertThat(this.engine.heldDone).as("the held operation answered").hasPositiveValue();
		// From there on the fake engine does not block: the thread waits again only in the pool's queue.
		while (!idle(writer.getState()) && System.nanoTime() < deadline) {
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
		}
		assertThat(idle(writer.getState())).as("the engine's thread is back in its pool: %s", writer.getState())
			.isTrue();
	}

	private static boolean idle(Thread.State state) {
		return state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING || state == Thread.State.TERMINATED;
	}

	@Test
	void aWriteBackHeldPastTheTimeoutDoesNotAddItsFailuresAgainOnTopOfTheNextWriteBack() {
		RetryCluster cluster = replica();
		RetryTemplate payments = payments(cluster);
		failOnce(payments, "k");
		failWhileTheEngineIsDown(payments, "k", 7);
		CountDownLatch late = new CountDownLatch(1);
		// The engine answers the write-back's read, and holds its compare-and-set, as a frozen member does.
		this.engine.lateWrites = late;
		cluster.synchronise();
		assertThat(cluster.status().pendingWriteBacks()).as("the write-back was not answered").isEqualTo(1);
		this.engine.lateWrites = null;
		cluster.synchronise();
		assertThat(storedCount("k")).as("the next write-back: 1 shared and the 7 counted locally").isEqualTo(8);
		assertThat(cluster.status().pendingWriteBacks()).isZero();

		releaseHeld(late);

		assertThat(storedCount("k")).as("the held write-back lost its compare-and-set and stopped").isEqualTo(8);
		cluster.synchronise();
		assertThat(storedCount("k")).isEqualTo(8);
	}

	@Test
	void aWriteBackWhoseReadIsAnsweredAfterTheTimeoutWritesNothingAndTheNextWritesEverything() {
		RetryCluster cluster = replica();
		RetryTemplate payments = payments(cluster);
		failOnce(payments, "k");
		failWhileTheEngineIsDown(payments, "k", 2);
		CountDownLatch late = new CountDownLatch(1);
		this.engine.lateReads = late;
		cluster.synchronise();
		assertThat(cluster.status().pendingWriteBacks()).as("the write-back was not answered").isEqualTo(1);
		this.engine.lateReads = null;
		int writes = this.engine.writes.get();

		releaseHeld(late);
		assertThat(this.engine.writes.get() - writes).as("compare-and-sets of the held write-back").isZero();
		assertThat(storedCount("k")).isEqualTo(1);
		cluster.synchronise();

		assertThat(this.engine.writes.get() - writes).as("one compare-and-set: the next write-back's").isEqualTo(1);
		assertThat(storedCount("k")).as("one failure before, two during").isEqualTo(3);
		assertThat(cluster.status().pendingWriteBacks()).isZero();
	}

	@Test
	void aFailureWhoseWriteWasHeldPastTheTimeoutIsCountedOnceByTheWriteBackAndNotAgainByTheWrite() {
		RetryCluster cluster = replica();
		RetryTemplate payments = payments(cluster);
		failOnce(payments, "k");
		CountDownLatch late = new CountDownLatch(1);
		this.engine.lateWrites = late;
		failOnce(payments, "k");
		assertThat(cluster.status().pendingWriteBacks()).as("counted locally, the write not answered").isEqualTo(1);
		this.engine.lateWrites = null;
		cluster.synchronise();
		assertThat(storedCount("k")).as("written back: the write's id is not in the entry").isEqualTo(2);

		releaseHeld(late);

		assertThat(storedCount("k")).as("the held write lost its compare-and-set and stopped").isEqualTo(2);
		failOnce(payments, "k");
		assertThat(storedCount("k")).isEqualTo(3);
	}

	@Test
	void aHeldWriteThatLandsBeforeTheWriteBackIsCountedOnce() {
		RetryCluster cluster = replica();
		RetryTemplate payments = payments(cluster);
		failOnce(payments, "k");
		CountDownLatch late = new CountDownLatch(1);
		this.engine.lateWrites = late;
		failOnce(payments, "k");
		this.engine.lateWrites = null;

		releaseHeld(late);
		assertThat(storedCount("k")).as("the held write landed on the bytes it read").isEqualTo(2);
		cluster.synchronise();

		assertThat(storedCount("k")).as("the write-back finds the write's id").isEqualTo(2);
		assertThat(cluster.status().pendingWriteBacks()).isZero();
	}

}
