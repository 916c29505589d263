package dev.retrykit.hazelcast;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import javax.management.BadAttributeValueExpException;

import com.hazelcast.config.ClassFilter;
import com.hazelcast.config.InMemoryYamlConfig;
import com.hazelcast.config.JavaSerializationFilterConfig;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.nio.serialization.HazelcastSerializationException;
import dev.retrykit.RetryRegistry;
import dev.retrykit.RetryState;
import dev.retrykit.RetryTemplate;
import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.circuit.CircuitBreakerConfig;
import dev.retrykit.cluster.RetryCluster;
import dev.retrykit.cluster.SnapshotCodec;
import dev.retrykit.testing.hazelcast.HazelcastTestCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The Java serialization filter the engine recommends (and README and the sample give) refuses a known
 * gadget class while every engine operation works; what the filter refuses, or what is not of the type
 * the engine writes, takes no replica off shared state; the engine warns when its instance has no such
 * filter.
 */
class HazelcastSerializationFilterTests {

	private static HazelcastTestCluster filtered;

	private static HazelcastTestCluster unfiltered;

	private final List<RetryCluster> clusters = new ArrayList<>();

	private final String prefix = "filter-" + UUID.randomUUID().toString().substring(0, 8);

	@BeforeAll
	static void startClusters() {
		filtered = new HazelcastTestCluster(2, HazelcastClusterEngine.javaSerializationFilter());
		unfiltered = new HazelcastTestCluster(1);
	}

	@AfterAll
	static void stopClusters() {
		filtered.close();
		unfiltered.close();
	}

	@AfterEach
	void closeClusters() {
		this.clusters.forEach(RetryCluster::close);
	}

	private RetryCluster cluster(HazelcastInstance instance) {
		RetryCluster cluster = RetryCluster.builder(HazelcastClusterEngine.builder(instance).prefix(this.prefix).build())
			.timeout(Duration.ofSeconds(5)).clusterBudget("shop").clusterCircuit("inventory", 1).build();
		this.clusters.add(cluster);
		return cluster;
	}

	private static RetryTemplate inventory(RetryCluster cluster) {
		RetryRegistry registry = cluster.bind(RetryRegistry.builder())
			.instance("inventory", null, config -> config.maxAttempts(3).backoff(BackoffPolicy.none())
				.circuitBreaker(CircuitBreakerConfig.builder().trip("consecutiveFailures > 1").build()))
			.build();
		cluster.attach(registry);
		return registry.template("inventory");
	}

	private static void failsOnceFromScratch(RetryTemplate template, String key) {
		assertThatExceptionOfType(IOException.class).isThrownBy(() -> template.execute(context -> {
			assertThat(context.getRetryCount()).isZero();
			throw new IOException("broken");
		}, RetryState.of(key)));
	}

	@Test
	void theRecommendedFilterRefusesAGadgetClassThatHazelcastsDefaultsAdmit() {
		String map = this.prefix + ".probe";
		filtered.member(0).getMap(map).put("gadget", new BadAttributeValueExpException("gadget"));
		assertThatExceptionOfType(HazelcastSerializationException.class)
			.isThrownBy(() -> filtered.member(1).getMap(map).get("gadget"))
			.withStackTraceContaining("javax.management.BadAttributeValueExpException");
		HazelcastTestCluster defaults = new HazelcastTestCluster(1, new JavaSerializationFilterConfig());
		try {
			defaults.member(0).getMap(map).put("gadget", new BadAttributeValueExpException("gadget"));
			assertThat(defaults.member(0).getMap(map).get("gadget")).isInstanceOf(BadAttributeValueExpException.class);
		}
		finally {
			defaults.close();
		}
	}

	@Test
	void theRecommendedFilterAdmitsTheExceptionsMembersAnswerFailedOperationsWith() {
		// A member answers an operation that met a migrating partition (another member left) with this exception,
		// Java-serialized: refused, the answer would be lost and the caller would wait out the invocation timeout.
		String map = this.prefix + ".probe";
		filtered.member(0).getMap(map).put("migrating",
				new com.hazelcast.spi.exception.PartitionMigratingException("partition 7 is migrating"));
		assertThat(filtered.member(1).getMap(map).get("migrating"))
			.isInstanceOf(com.hazelcast.spi.exception.PartitionMigratingException.class);
		filtered.member(0).getMap(map).put("timeout", new java.util.concurrent.TimeoutException("late"));
		assertThat(filtered.member(1).getMap(map).get("timeout")).isInstanceOf(java.util.concurrent.TimeoutException.class);
	}

	@Test
	void readmesYamlFilterIsTheEnginesFilter() throws IOException {
		String readme = Files.readString(Path.of("..", "README.md"));
		int start = readme.indexOf("  hazelcast:\n    serialization:\n      java-serialization-filter:");
		assertThat(start).as("README's hazelcast.yaml filter").isNotNegative();
		String yaml = readme.substring(start, readme.indexOf("```", start)).stripIndent();
		JavaSerializationFilterConfig fromReadme = new InMemoryYamlConfig(yaml).getSerializationConfig()
			.getJavaSerializationFilterConfig();
		assertThat(fromReadme).isEqualTo(HazelcastClusterEngine.javaSerializationFilter());
		assertThat(fromReadme.isDefaultsDisabled()).isTrue();
		assertThat(fromReadme.getWhitelist().getClasses()).contains("java.lang.String", "java.lang.Long", "[B",
				"java.util.Properties", "java.util.Hashtable");
		assertThat(fromReadme.getWhitelist().getPrefixes()).containsExactly("com.hazelcast.");
	}

	@Test
	void whatTheFilterRefusesOrWhatIsNotBytesIsAnUndecodableEntryReplacedWithoutAFallback() {
		RetryCluster cluster = cluster(filtered.member(0));
		RetryRegistry registry = cluster.bind(RetryRegistry.builder())
			.instance("inventory", null, config -> config.maxAttempts(3).backoff(BackoffPolicy.none()))
			.build();
		RetryTemplate template = registry.template("inventory");
		Map<String, Object> foreign = new HashMap<>();
		foreign.put("gadget", new BadAttributeValueExpException("gadget"));
		foreign.put("text", "not a snapshot");
		foreign.put("number", 42L);
		foreign.put("too-long", new byte[SnapshotCodec.MAX_BYTES + 1]);
		filtered.member(1).getMap(this.prefix + ".contexts.inventory").putAll(foreign);
		for (String key : foreign.keySet()) {
			failsOnceFromScratch(template, key);
			Object stored = filtered.member(1).getMap(this.prefix + ".contexts.inventory").get(key);
			assertThat(SnapshotCodec.jdkValuesOnly().decode((byte[]) stored).getRetryCount()).as(key).isEqualTo(1);
		}
		assertThat(cluster.status().undecodableEntries()).isEqualTo(foreign.size());
		assertThat(cluster.status().fallbacks()).isZero();
		assertThat(cluster.status().reachable()).isTrue();
	}

	@Test
	void aBudgetOrCircuitStateOfAnotherTypeIsReadWithoutFailing() {
		HazelcastClusterEngine engine = HazelcastClusterEngine.builder(filtered.member(0)).prefix(this.prefix).build();
		filtered.member(1).getMap(this.prefix + ".budgets").put("shop", new BadAttributeValueExpException("gadget"));
		filtered.member(1).getMap(this.prefix + ".budgets").put("pricing", "ten");
		filtered.member(1).getMap(this.prefix + ".circuit-states").put("inventory", new BadAttributeValueExpException("gadget"));
		filtered.member(1).getMap(this.prefix + ".circuit-states").put("pricing", 7L);
		assertThat(engine.exchangeBudget("shop", -1_000, 10_000)).isEqualTo(9_000);
		assertThat(engine.exchangeBudget("shop", -1_000, 10_000)).isEqualTo(8_000);
		assertThat(engine.exchangeBudget("pricing", 0, 5_000)).isEqualTo(5_000);
		assertThat(engine.circuitState("inventory")).isNotNull().isNotIn("FORCE_OPEN", "CLOSE");
		assertThat(engine.circuitState("pricing")).isNotNull().isNotIn("FORCE_OPEN", "CLOSE");
	}

	@Test
	void aTopicMessageThatCannotBeDeserializedIsCountedAsDropped() {
		RetryCluster cluster = cluster(filtered.member(0));
		inventory(cluster);
		filtered.member(1).getTopic(this.prefix + ".circuits").publish(new BadAttributeValueExpException("gadget"));
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
		while (cluster.status().droppedSignals() == 0 && System.nanoTime() - deadline < 0) {
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
		}
		assertThat(cluster.status().droppedSignals()).isEqualTo(1);
	}

	@Test
	void theEngineWarnsOnceWhenItsInstanceHasNoFilterThatRefusesJavaSerialization() {
		List<String> warnings = new CopyOnWriteArrayList<>();
		Logger logger = Logger.getLogger(HazelcastClusterEngine.class.getName());
		Handler handler = new Handler() {

			@Override
			public void publish(LogRecord record) {
				if (record.getLevel().intValue() >= java.util.logging.Level.WARNING.intValue()) {
					warnings.add(record.getMessage());
				}
			}

			@Override
			public void flush() {
			}

			@Override
			public void close() {
			}

		};
		logger.addHandler(handler);
		try {
			HazelcastClusterEngine.builder(filtered.member(0)).prefix(this.prefix).build();
			assertThat(warnings).isEmpty();
			HazelcastClusterEngine.builder(unfiltered.member(0)).prefix(this.prefix).build();
			assertThat(warnings).singleElement().asString().contains("has no Java serialization filter")
				.contains("HazelcastClusterEngine.javaSerializationFilter()");
		}
		finally {
			logger.removeHandler(handler);
		}
		assertThat(SerializationFilterCheck.problem(new JavaSerializationFilterConfig())).contains("keeps the defaults");
		assertThat(SerializationFilterCheck.problem(new JavaSerializationFilterConfig().setDefaultsDisabled(true)))
			.contains("empty whitelist");
		assertThat(SerializationFilterCheck.problem(HazelcastClusterEngine.javaSerializationFilter())).isNull();
	}

	@Test
	void aClientWithTheFilterReadsWhatItRefusesAsAnUnreadableEntry() {
		HazelcastInstance client = filtered.startClient();
		HazelcastClusterEngine engine = HazelcastClusterEngine.builder(client).prefix(this.prefix).build();
		filtered.member(1).getMap(this.prefix + ".contexts.inventory").put("gadget", new BadAttributeValueExpException("gadget"));
		byte[] read = engine.getContext("inventory", "gadget");
		assertThat(read).isNotNull();
		assertThat(engine.compareAndSetContext("inventory", "gadget", read, new byte[] { 1 })).isTrue();
		assertThat(engine.getContext("inventory", "gadget")).containsExactly(1);
	}

}
