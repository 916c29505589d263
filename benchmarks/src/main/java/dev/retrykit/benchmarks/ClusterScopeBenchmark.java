package dev.retrykit.benchmarks;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import dev.retrykit.RetryCallback;
import dev.retrykit.RetryRegistry;
import dev.retrykit.RetryTemplate;
import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.budget.RetryBudgetConfig;
import dev.retrykit.circuit.CircuitBreakerConfig;
import dev.retrykit.cluster.RetryCluster;
import dev.retrykit.hazelcast.HazelcastClusterEngine;
import dev.retrykit.redis.RedisEngine;
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
 * A successful call through a retry budget and through a circuit breaker, local and cluster-scoped
 * (shared through a real embedded Hazelcast member, or through a real {@code redis-server} on 127.0.0.1 that
 * the benchmark starts, synchronising every 100 ms in the background): the hot path of a cluster-scoped
 * budget or breaker must stay local, allocate nothing and cost about what the local one does. The Redis
 * variants fail their setup, saying so, when {@code redis-server} is not on the {@code PATH}; the others run.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(2)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
public class ClusterScopeBenchmark {

	@Benchmark
	public void localBudget(Replica replica, Blackhole bh) {
		bh.consume(replica.localBudget.execute(replica.callback));
	}

	@Benchmark
	public void clusterBudget(Replica replica, Blackhole bh) {
		bh.consume(replica.clusterBudget.execute(replica.callback));
	}

	@Benchmark
	public void localCircuitBreaker(Replica replica, Blackhole bh) {
		bh.consume(replica.localBreaker.execute(replica.callback));
	}

	@Benchmark
	public void clusterCircuitBreaker(Replica replica, Blackhole bh) {
		bh.consume(replica.clusterBreaker.execute(replica.callback));
	}

	@Benchmark
	public void redisClusterBudget(RedisReplica replica, Blackhole bh) {
		bh.consume(replica.clusterBudget.execute(replica.callback));
	}

	@Benchmark
	public void redisClusterCircuitBreaker(RedisReplica replica, Blackhole bh) {
		bh.consume(replica.clusterBreaker.execute(replica.callback));
	}

	/** One replica: an embedded Hazelcast member on 127.0.0.1 alone in its cluster, and its retry instances. */
	@State(Scope.Benchmark)
	public static class Replica {

		/** Not final, so the JIT cannot fold the call into a constant. */
		String payload = "ok";

		final RetryCallback<String, RuntimeException> callback = context -> this.payload;

		HazelcastInstance member;

		RetryCluster cluster;

		RetryTemplate localBudget;

		RetryTemplate clusterBudget;

		RetryTemplate localBreaker;

		RetryTemplate clusterBreaker;

		@Setup
		public void start() {
			Config config = new Config().setClusterName("retrykit-bench-" + UUID.randomUUID());
			config.setProperty("hazelcast.phone.home.enabled", "false");
			config.setProperty("hazelcast.logging.type", "none");
			config.setProperty("hazelcast.partition.count", "7");
			config.getJetConfig().setEnabled(false);
			config.getNetworkConfig().setPort(0).getInterfaces().setEnabled(true).addInterface("127.0.0.1");
			JoinConfig join = config.getNetworkConfig().getJoin();
			join.getMulticastConfig().setEnabled(false);
			join.getAutoDetectionConfig().setEnabled(false);
			join.getTcpIpConfig().setEnabled(false);
			this.member = Hazelcast.newHazelcastInstance(config);
			// A cold JVM creates the engine's map proxies slowly: a generous timeout keeps the first exchanges in.
			this.cluster = RetryCluster.builder(HazelcastClusterEngine.builder(this.member).build())
				.timeout(Duration.ofSeconds(5)).build();
			RetryRegistry registry = RetryRegistry.builder()
				.instance("local-budget", null, c -> c.backoff(BackoffPolicy.none()).budget(RetryBudgetConfig.ofDefaults(), "local"))
				.instance("cluster-budget", null, c -> c.backoff(BackoffPolicy.none()).budget(RetryBudgetConfig.ofDefaults(), "shared"))
				.instance("local-breaker", null, c -> c.backoff(BackoffPolicy.none()).circuitBreaker(CircuitBreakerConfig.ofDefaults()))
				.instance("cluster-breaker", null, c -> c.backoff(BackoffPolicy.none()).circuitBreaker(CircuitBreakerConfig.ofDefaults()))
				.build();
			this.localBudget = registry.template("local-budget");
			this.clusterBudget = registry.template("cluster-budget");
			this.localBreaker = registry.template("local-breaker");
			this.clusterBreaker = registry.template("cluster-breaker");
			// Both instances are built with a budget and a breaker just above.
			this.cluster.attach(Objects.requireNonNull(this.clusterBudget.getBudget()));
			this.cluster.attach(Objects.requireNonNull(this.clusterBreaker.getCircuitBreaker()), 1);
			this.cluster.synchronise();
			if (!this.cluster.isShared(Objects.requireNonNull(this.clusterBudget.getBudget())) || !this.cluster.status().reachable()) {
				stop();
				throw new IllegalStateException("The benchmark's budget is not shared through a reachable member: "
						+ this.cluster);
			}
			this.cluster.start();
		}

		@TearDown
		public void stop() {
			this.cluster.close();
			this.member.getLifecycleService().terminate();
		}

	}

	/** One replica on Redis: a redis-server of its own on a free port of 127.0.0.1, and its shared instances. */
	@State(Scope.Benchmark)
	public static class RedisReplica {

		/** Not final, so the JIT cannot fold the call into a constant. */
		String payload = "ok";

		final RetryCallback<String, RuntimeException> callback = context -> this.payload;

		RedisTestServer server;

		RedisClient client;

		RedisEngine engine;

		RetryCluster cluster;

		RetryTemplate clusterBudget;

		RetryTemplate clusterBreaker;

		@Setup
		public void start() {
			if (!onPath("redis-server")) {
				throw new IllegalStateException("Skipped: redis-server is not on the PATH, and the Redis variants run "
						+ "against one they start on 127.0.0.1 (Debian: apt-get install -y redis-server)");
			}
			this.server = new RedisTestServer();
			this.client = RedisClient.create(this.server.uri());
			this.engine = RedisEngine.builder(this.client).prefix("retrykit-bench").build();
			this.cluster = RetryCluster.builder(this.engine).timeout(Duration.ofSeconds(5)).build();
			RetryRegistry registry = RetryRegistry.builder()
				.instance("cluster-budget", null, c -> c.backoff(BackoffPolicy.none()).budget(RetryBudgetConfig.ofDefaults(), "shared"))
				.instance("cluster-breaker", null, c -> c.backoff(BackoffPolicy.none()).circuitBreaker(CircuitBreakerConfig.ofDefaults()))
				.build();
			this.clusterBudget = registry.template("cluster-budget");
			this.clusterBreaker = registry.template("cluster-breaker");
			// Both instances are built with a budget and a breaker just above.
			this.cluster.attach(Objects.requireNonNull(this.clusterBudget.getBudget()));
			this.cluster.attach(Objects.requireNonNull(this.clusterBreaker.getCircuitBreaker()), 1);
			this.cluster.synchronise();
			if (!this.cluster.isShared(Objects.requireNonNull(this.clusterBudget.getBudget())) || !this.cluster.status().reachable()) {
				stop();
				throw new IllegalStateException("The benchmark's budget is not shared through a reachable Redis: "
						+ this.cluster);
			}
			this.cluster.start();
		}

		@TearDown
		public void stop() {
			this.cluster.close();
			this.engine.close();
			this.client.shutdown();
			this.server.close();
		}

		private static boolean onPath(String command) {
			String path = System.getenv("PATH");
			if (path == null) {
				return false;
			}
			for (String directory : path.split(File.pathSeparator)) {
				Path candidate = Path.of(directory, command);
				if (Files.isExecutable(candidate)) {
					return true;
				}
			}
			return false;
		}

	}

}
