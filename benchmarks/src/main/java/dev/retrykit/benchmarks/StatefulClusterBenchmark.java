package dev.retrykit.benchmarks;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import dev.retrykit.RetryCallback;
import dev.retrykit.RetryRegistry;
import dev.retrykit.RetryState;
import dev.retrykit.RetryTemplate;
import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.cluster.RetryCluster;
import dev.retrykit.hazelcast.HazelcastClusterEngine;
import dev.retrykit.redis.RedisEngine;
import dev.retrykit.spi.ClusterEngine;
import dev.retrykit.testing.redis.RedisTestServer;
import io.lettuce.core.RedisClient;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * A stateful call's shared read and write, on each engine: Hazelcast (one embedded member on
 * 127.0.0.1) and Redis (a {@code redis-server} on a free port of 127.0.0.1, which the benchmark starts and
 * stops; it needs the Debian package). A failing call reads its entry and writes it back with one more
 * failure; a succeeding call reads (no entry) and removes. Each is two round trips to the engine.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar StatefulClusterBenchmark}
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class StatefulClusterBenchmark {

	private static final RuntimeException FAILURE = new IllegalStateException("downstream failed") {

		private static final long serialVersionUID = 1L;

		@Override
		public synchronized Throwable fillInStackTrace() {
			return this;
		}

	};

	private static final RetryCallback<String, RuntimeException> FAILING = context -> {
		throw FAILURE;
	};

	private static final RetryCallback<String, RuntimeException> SUCCEEDING = context -> "ok";

	private static final RetryState FAILING_KEY = RetryState.of("order-failing");

	private static final RetryState FRESH_KEY = RetryState.of("order-fresh");

	@Benchmark
	public void hazelcastFailingCall(Engines engines, Blackhole bh) {
		bh.consume(fail(engines.hazelcast));
	}

	@Benchmark
	public void hazelcastSucceedingCall(Engines engines, Blackhole bh) {
		bh.consume(engines.hazelcast.execute(SUCCEEDING, FRESH_KEY));
	}

	@Benchmark
	public void redisFailingCall(Engines engines, Blackhole bh) {
		bh.consume(fail(engines.redis));
	}

	@Benchmark
	public void redisSucceedingCall(Engines engines, Blackhole bh) {
		bh.consume(engines.redis.execute(SUCCEEDING, FRESH_KEY));
	}

	private static RuntimeException fail(RetryTemplate template) {
		try {
			template.execute(FAILING, FAILING_KEY);
			throw new IllegalStateException("The failing call succeeded");
		}
		catch (IllegalStateException ex) {
			if (ex != FAILURE) {
				throw ex;
			}
			return ex;
		}
	}

	/** Both engines, and a stateful instance on each. */
	@State(Scope.Benchmark)
	public static class Engines {

		HazelcastInstance member;

		RedisTestServer server;

		RedisClient client;

		RedisEngine redisEngine;

		RetryCluster hazelcastCluster;

		RetryCluster redisCluster;

		RetryTemplate hazelcast;

		RetryTemplate redis;

		@Setup
		public void start() {
			Config config = new Config().setClusterName("retrykit-bench-" + UUID.randomUUID());
			config.setProperty("hazelcast.phone.home.enabled", "false");
			config.setProperty("hazelcast.logging.type", "none");
			config.getJetConfig().setEnabled(false);
			config.getNetworkConfig().setPort(0).getInterfaces().setEnabled(true).addInterface("127.0.0.1");
			JoinConfig join = config.getNetworkConfig().getJoin();
			join.getMulticastConfig().setEnabled(false);
			join.getAutoDetectionConfig().setEnabled(false);
			join.getTcpIpConfig().setEnabled(false);
			this.member = Hazelcast.newHazelcastInstance(config);
			this.server = new RedisTestServer();
			this.client = RedisClient.create(this.server.uri());
			this.redisEngine = RedisEngine.builder(this.client).prefix("bench").build();
			this.hazelcastCluster = cluster(HazelcastClusterEngine.builder(this.member).prefix("bench").build());
			this.redisCluster = cluster(this.redisEngine);
			this.hazelcast = stateful(this.hazelcastCluster);
			this.redis = stateful(this.redisCluster);
		}

		private static RetryCluster cluster(ClusterEngine engine) {
			return RetryCluster.builder(engine).timeout(Duration.ofSeconds(5)).build();
		}

		private static RetryTemplate stateful(RetryCluster cluster) {
			RetryRegistry registry = cluster.bind(RetryRegistry.builder())
				.instance("payments", null, c -> c.maxAttempts(-1).backoff(BackoffPolicy.none()))
				.build();
			return registry.template("payments");
		}

		@TearDown
		public void stop() throws Exception {
			this.hazelcastCluster.close();
			this.redisCluster.close();
			this.redisEngine.close();
			this.client.shutdown();
			this.server.close();
			this.member.getLifecycleService().terminate();
		}

	}

}
