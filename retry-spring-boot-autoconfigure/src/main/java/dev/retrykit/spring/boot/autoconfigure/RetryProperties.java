package dev.retrykit.spring.boot.autoconfigure;

import dev.retrykit.spring.boot.convert.CompoundDuration;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.core.Ordered;

/**
 * The {@code retry.*} properties: defaults, shared configs, named instances, and the settings of the
 * context cache, the timer, pointcut targets and the aspect.
 *
 * <p>A plain holder with no logic: {@link RetryPropertiesMapper} turns it into core configurations.
 * Unknown keys are rejected at startup. Not thread-safe; read once at startup.
 */
@ConfigurationProperties(prefix = "retry", ignoreUnknownFields = false)
public class RetryProperties {

	/** The default order of the retry advisor: just outside {@code @Transactional}'s, so each attempt gets a fresh transaction. */
	public static final int DEFAULT_ASPECT_ORDER = Ordered.LOWEST_PRECEDENCE - 10;

	/** Whether to enable retrykit's auto-configuration (registry, templates, aspect). */
	private boolean enabled = true;

	/** Base settings of every instance and config, and of any instance name used but not declared. */
	@NestedConfigurationProperty
	private RetryInstanceProperties defaults = new RetryInstanceProperties();

	/** Shared configs, by name, that instances (or other configs) reference with base-config. */
	private Map<String, RetryInstanceProperties> configs = new LinkedHashMap<>();

	/** Named retry instances; each gets a RetryTemplate bean named '<name>RetryTemplate'. */
	private Map<String, RetryInstanceProperties> instances = new LinkedHashMap<>();

	/** The stateful-retry context cache of each instance. */
	private final ContextCache contextCache = new ContextCache();

	/** State shared by the service's replicas through the application's HazelcastInstance. */
	private final Cluster cluster = new Cluster();

	/** The timing wheel behind async retries and background failback. */
	private final Timer timer = new Timer();

	/** Headers of retried HTTP calls: the attempt number sent, and what travels between services. */
	private final Http http = new Http();

	/** Retry applied to beans matched by an AspectJ pointcut, without annotations. */
	private List<Target> targets = new ArrayList<>();

	/** Order of the retry advisor; the default wraps @Transactional (each attempt a fresh transaction). */
	private int aspectOrder = DEFAULT_ASPECT_ORDER;

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public RetryInstanceProperties getDefaults() {
		return this.defaults;
	}

	public void setDefaults(RetryInstanceProperties defaults) {
		this.defaults = defaults;
	}

	public Map<String, RetryInstanceProperties> getConfigs() {
		return this.configs;
	}

	public void setConfigs(Map<String, RetryInstanceProperties> configs) {
		this.configs = configs;
	}

	public Map<String, RetryInstanceProperties> getInstances() {
		return this.instances;
	}

	public void setInstances(Map<String, RetryInstanceProperties> instances) {
		this.instances = instances;
	}

	public ContextCache getContextCache() {
		return this.contextCache;
	}

	public Cluster getCluster() {
		return this.cluster;
	}

	public Timer getTimer() {
		return this.timer;
	}

	public Http getHttp() {
		return this.http;
	}

	public List<Target> getTargets() {
		return this.targets;
	}

	public void setTargets(List<Target> targets) {
		this.targets = targets;
	}

	public int getAspectOrder() {
		return this.aspectOrder;
	}

	public void setAspectOrder(int aspectOrder) {
		this.aspectOrder = aspectOrder;
	}

	/** The stateful-retry context cache. */
	public static class ContextCache {

		/** Most contexts kept per instance; the eldest is evicted (and counted) when full. With the cluster enabled: the bound per member of the shared map. */
		private int capacity = 4096;

		/** With the cluster enabled: how long a shared context is kept after its last write. */
		@CompoundDuration
		private Duration ttl = Duration.ofHours(1);

		public Duration getTtl() {
			return this.ttl;
		}

		public void setTtl(Duration ttl) {
			this.ttl = ttl;
		}

		public int getCapacity() {
			return this.capacity;
		}

		public void setCapacity(int capacity) {
			this.capacity = capacity;
		}

	}

	/** State shared by a service's replicas: stateful contexts, cluster-scoped budgets and circuit breakers. */
	public static class Cluster {

		/**
		 * Whether to share state with the other replicas through a cluster engine (see retry.cluster.engine);
		 * startup fails if no engine's module and connection are there.
		 */
		private boolean enabled;

		/**
		 * Which engine shares the state: hazelcast (the application's HazelcastInstance bean, with
		 * dev.retrykit:retry-hazelcast) or redis (the application's Redis connection as spring.data.redis.*
		 * configures it, Lettuce, with dev.retrykit:retry-redis). Empty: the one whose module and connection
		 * are present; startup fails when both are, or when the chosen one's module or connection is missing.
		 */
		private String engine = "";

		/** Start of the names of the engine's maps and topics (Hazelcast) or keys and channel (Redis). */
		private String prefix = "retrykit";

		/** Longest a call waits for the engine; past it the replica uses local state. */
		@CompoundDuration
		private Duration timeout = Duration.ofMillis(100);

		/** How often a replica exchanges budget changes with the cluster. */
		@CompoundDuration
		private Duration syncInterval = Duration.ofMillis(100);

		/** Which stateful-context attributes travel between replicas. */
		private final Attributes attributes = new Attributes();

		public Attributes getAttributes() {
			return this.attributes;
		}

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public String getEngine() {
			return this.engine;
		}

		public void setEngine(String engine) {
			this.engine = engine;
		}

		public String getPrefix() {
			return this.prefix;
		}

		public void setPrefix(String prefix) {
			this.prefix = prefix;
		}

		public Duration getTimeout() {
			return this.timeout;
		}

		public void setTimeout(Duration timeout) {
			this.timeout = timeout;
		}

		public Duration getSyncInterval() {
			return this.syncInterval;
		}

		public void setSyncInterval(Duration syncInterval) {
			this.syncInterval = syncInterval;
		}

		/** Which stateful-context attributes travel between replicas. */
		public static class Attributes {

			/**
			 * Classes (com.example.Order) or package prefixes ending in .* (com.example.*) whose context
			 * attributes travel too, by Java serialization read back through an allow-list filter. JDK value
			 * types (String, boxed primitives, byte[], BigInteger, BigDecimal, UUID, java.time values, lists,
			 * sets and maps of them) always travel; attributes of other classes stay on their replica, counted.
			 * Startup fails on an entry that covers the JDK (java., javax., jdk., sun., com.sun.), is a
			 * one-segment prefix (org.*), or names a proxy, java.rmi.*, SignedObject or SerializedLambda.
			 */
			private List<String> allowed = new ArrayList<>();

			public List<String> getAllowed() {
				return this.allowed;
			}

			public void setAllowed(List<String> allowed) {
				this.allowed = allowed;
			}

		}

	}

	/** The hashed timing wheel (one daemon thread for every instance). */
	public static class Timer {

		/** Resolution of the timer: a delayed retry fires on the first tick at or after its deadline. */
		@CompoundDuration
		private Duration tick = Duration.ofMillis(10);

		/** Number of buckets of the wheel, rounded up to a power of two. */
		private int wheelSize = 512;

		public Duration getTick() {
			return this.tick;
		}

		public void setTick(Duration tick) {
			this.tick = tick;
		}

		public int getWheelSize() {
			return this.wheelSize;
		}

		public void setWheelSize(int wheelSize) {
			this.wheelSize = wheelSize;
		}

	}

	/** Headers of retried HTTP calls, and their propagation between services. */
	public static class Http {

		/** Header every attempt after the first of a retried HTTP client call carries, with the attempt's number (2, 3, ...). An HTTP token. */
		private String attemptHeader = "X-Retry-Attempt";

		/** Header of an error response (status 400 or above) whose request had a retrykit call give up (attempts run out, or a retry refused by budget, circuit, deadline or an exhausted downstream), with the instance's name; a retrykit client never retries a response that carries it. An HTTP token. */
		private String exhaustedHeader = "X-Retry-Exhausted";

		/** Header carrying the time a request has left, in whole milliseconds: read from requests (malformed or negative values ignored, more than one hour clamped) and sent with each attempt of a retrykit HTTP call. An HTTP token. */
		private String deadlineHeader = "X-Request-Timeout";

		/** Propagation of deadlines and exhaustion between services. */
		private final Propagation propagation = new Propagation();

		public String getAttemptHeader() {
			return this.attemptHeader;
		}

		public void setAttemptHeader(String attemptHeader) {
			this.attemptHeader = attemptHeader;
		}

		public String getExhaustedHeader() {
			return this.exhaustedHeader;
		}

		public void setExhaustedHeader(String exhaustedHeader) {
			this.exhaustedHeader = exhaustedHeader;
		}

		public String getDeadlineHeader() {
			return this.deadlineHeader;
		}

		public void setDeadlineHeader(String deadlineHeader) {
			this.deadlineHeader = deadlineHeader;
		}

		public Propagation getPropagation() {
			return this.propagation;
		}

		/** Propagation of deadlines and exhaustion between services. */
		public static class Propagation {

			/** Whether deadlines and exhaustion travel between services in the headers above: the server filters mark error responses and read deadlines, and retrykit HTTP clients send deadlines and never retry a marked response. */
			private boolean enabled = true;

			public boolean isEnabled() {
				return this.enabled;
			}

			public void setEnabled(boolean enabled) {
				this.enabled = enabled;
			}

		}

	}

	/** An instance applied to the methods an AspectJ pointcut expression matches. */
	public static class Target {

		/** AspectJ pointcut expression, e.g. "execution(* com.example.client.InventoryApi.*(..))". */
		private @Nullable String pointcut;

		/** Name of the instance that retries the matched methods. */
		private @Nullable String instance;

		public @Nullable String getPointcut() {
			return this.pointcut;
		}

		public void setPointcut(@Nullable String pointcut) {
			this.pointcut = pointcut;
		}

		public @Nullable String getInstance() {
			return this.instance;
		}

		public void setInstance(@Nullable String instance) {
			this.instance = instance;
		}

	}

}
