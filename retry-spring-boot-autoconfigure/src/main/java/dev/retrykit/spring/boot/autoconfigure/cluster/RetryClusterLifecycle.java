package dev.retrykit.spring.boot.autoconfigure.cluster;

import dev.retrykit.cluster.RetryCluster;

import org.springframework.context.SmartLifecycle;

/**
 * Starts the retry cluster's synchronisation once the context is refreshed and stops it while its engine's
 * connection is still open: in a phase after the connection factories' (Spring Data Redis's
 * {@code LettuceConnectionFactory} starts in phase 0 and stops last) and before the web server's (its
 * graceful shutdown, {@code DEFAULT_PHASE - 2048}, stops earlier, so requests in flight still share their
 * state). A stopped cluster is not started again: its synchronisation thread is gone. Thread-safe.
 */
final class RetryClusterLifecycle implements SmartLifecycle {

	/** After the connection factories (phase 0), before the web server (from {@code DEFAULT_PHASE - 2048}). */
	static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

	private final RetryCluster cluster;

	private volatile boolean running;

	RetryClusterLifecycle(RetryCluster cluster) {
		this.cluster = cluster;
	}

	@Override
	public void start() {
		this.cluster.start();
		this.running = true;
	}

	@Override
	public void stop() {
		this.cluster.close();
		this.running = false;
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

}
