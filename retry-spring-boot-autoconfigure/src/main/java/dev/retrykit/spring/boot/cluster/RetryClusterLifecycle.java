package dev.retrykit.spring.boot.cluster;

import java.util.concurrent.atomic.AtomicBoolean;

import dev.retrykit.cluster.RetryCluster;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.SmartLifecycle;

/**
 * Starts the retry cluster's synchronisation once the context is refreshed, and stops it, then closes the
 * engine the auto-configuration built (the connections a Redis engine opened), while the engine's own
 * connection is still open: in a phase after the connection factories' (Spring Data Redis's
 * {@code LettuceConnectionFactory} starts in phase 0 and stops last, closing its client's connections) and
 * before the web server's (its graceful shutdown, {@code DEFAULT_PHASE - 2048}, stops earlier, so requests in
 * flight still share their state). A context that fails to start closes them when it is destroyed. A
 * stopped cluster is not started again: its synchronisation thread is gone. Thread-safe.
 */
public final class RetryClusterLifecycle implements SmartLifecycle, DisposableBean {

	/** After the connection factories (phase 0), before the web server (from {@code DEFAULT_PHASE - 2048}). */
	static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

	private static final Log LOGGER = LogFactory.getLog(RetryClusterLifecycle.class);

	private final RetryCluster cluster;

	private final @Nullable AutoCloseable engine;

	private final AtomicBoolean closed = new AtomicBoolean();

	private volatile boolean running;

	/**
	 * Makes the lifecycle of a cluster.
	 * @param cluster the cluster
	 * @param engine the engine to close after the cluster, or {@code null} when it is the application's
	 */
	public RetryClusterLifecycle(RetryCluster cluster, @Nullable AutoCloseable engine) {
		this.cluster = cluster;
		this.engine = engine;
	}

	@Override
	public void start() {
		this.cluster.start();
		this.running = true;
	}

	@Override
	public void stop() {
		close();
	}

	@Override
	public void destroy() {
		close();
	}

	private void close() {
		this.running = false;
		if (!this.closed.compareAndSet(false, true)) {
			return;
		}
		this.cluster.close();
		if (this.engine != null) {
			try {
				this.engine.close();
			}
			catch (Exception ex) {
				LOGGER.warn("Closing the retry cluster's engine failed", ex);
			}
		}
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
