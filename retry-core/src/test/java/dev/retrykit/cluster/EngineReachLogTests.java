package dev.retrykit.cluster;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import dev.retrykit.RetryCallback;
import dev.retrykit.RetryRegistry;
import dev.retrykit.RetryState;
import dev.retrykit.RetryTemplate;
import dev.retrykit.VirtualTime;
import dev.retrykit.backoff.BackoffPolicy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What the log says of the engine's reach: one warning per spell of unreachability, also when the engine
 * answers some operations and not others, and one line when it is reachable again, with how long it was away
 * and what was written back; and how stale the replica's view is meanwhile.
 */
class EngineReachLogTests {

	private final FakeClusterEngine.Store store = new FakeClusterEngine.Store();

	private final VirtualTime time = new VirtualTime();

	private final List<LogRecord> logged = new CopyOnWriteArrayList<>();

	private final Logger clusterLogger = Logger.getLogger("dev.retrykit.cluster");

	private final Handler capture = new Handler() {

		@Override
		public void publish(LogRecord entry) {
			EngineReachLogTests.this.logged.add(entry);
		}

		@Override
		public void flush() {
		}

		@Override
		public void close() {
		}

	};

	private RetryCluster cluster;

	@BeforeEach
	void captureLog() {
		this.clusterLogger.addHandler(this.capture);
	}

	@AfterEach
	void close() {
		this.clusterLogger.removeHandler(this.capture);
		if (this.cluster != null) {
			this.cluster.close();
		}
	}

	private RetryTemplate stateful(FakeClusterEngine engine) {
		this.cluster = RetryCluster.builder(engine).replicaId("a").timeout(Duration.ofMillis(200)).timeSource(this.time)
			.build();
		RetryRegistry registry = this.cluster.bind(RetryRegistry.builder().virtualTime(this.time))
			.instance("payments", null, config -> config.maxAttempts(-1).backoff(BackoffPolicy.none()))
			.build();
		this.cluster.attach(registry);
		return registry.template("payments");
	}

	private static void failOnce(RetryTemplate template, String key) {
		assertThatExceptionOfType(IOException.class).isThrownBy(() -> template.execute(context -> {
			throw new IOException("down");
		}, RetryState.of(key)));
	}

	private List<String> messages(Level level) {
		return this.logged.stream().filter(entry -> entry.getLevel() == level).map(LogRecord::getMessage).toList();
	}

	@Test
	void anEngineThatAnswersProbesButFailsWritesWarnsOncePerSpellNotAtEveryFlip() {
		FakeClusterEngine engine = new FakeClusterEngine(this.store);
		RetryTemplate template = stateful(engine);
		this.cluster.synchronise();
		engine.writesDown = true;
		for (int flip = 0; flip < 5; flip++) {
			failOnce(template, "order-" + flip);
			this.time.advance(Duration.ofMillis(100));
			// The member count answers: the replica tries the engine again, and the next write fails again.
			this.cluster.synchronise();
		}
		assertThat(messages(Level.WARNING)).singleElement().asString().contains("unreachable or slower than the timeout");
		assertThat(messages(Level.INFO)).isEmpty();
	}

	@Test
	void theEngineBackIsLoggedOnceWithHowLongItWasAwayAndWhatWasWrittenBack() {
		FakeClusterEngine engine = new FakeClusterEngine(this.store);
		RetryTemplate template = stateful(engine);
		this.cluster.synchronise();
		engine.down = true;
		failOnce(template, "order-1");
		failOnce(template, "order-2");
		this.time.advance(Duration.ofMillis(1200));
		this.cluster.synchronise();
		assertThat(this.cluster.unansweredFor()).isEqualTo(Duration.ofMillis(1200));
		this.time.advance(Duration.ofMillis(300));
		engine.down = false;
		this.cluster.synchronise();
		assertThat(this.cluster.unansweredFor()).isNull();
		for (int sync = 0; sync < 6; sync++) {
			this.time.advance(Duration.ofMillis(100));
			this.cluster.synchronise();
		}
		// Not yet: the engine must answer everything for a second (the settle time) before the spell ends.
		assertThat(messages(Level.INFO)).isEmpty();
		this.time.advance(Duration.ofMillis(100));
		this.cluster.synchronise();
		this.time.advance(Duration.ofMillis(100));
		this.cluster.synchronise();
		assertThat(messages(Level.WARNING)).hasSize(1);
		assertThat(messages(Level.INFO)).singleElement().asString()
			.contains("reachable again after 2.2s away")
			.contains("2 stateful contexts changed meanwhile written back");
		assertThat(template.execute((RetryCallback<Integer, RuntimeException>) context -> context.getRetryCount(),
				RetryState.of("order-3"))).isZero();
	}

}
