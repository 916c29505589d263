package dev.retrykit.spring.boot.actuate.endpoint;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

import dev.retrykit.RetryRegistry;
import dev.retrykit.RetryTemplate;
import dev.retrykit.circuit.CircuitBreaker;
import dev.retrykit.cluster.ClusterStatus;
import dev.retrykit.cluster.RetryCluster;
import dev.retrykit.text.Durations;
import dev.retrykit.spi.TimeSource;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * The {@code retries} endpoint: every retry instance with its effective configuration, counters,
 * circuit breaker, retry budget, stateful-retry context cache and failback executor; one instance in
 * detail, with its cache entries, failback tasks and recent events; and a write operation to open or
 * close a circuit or clear a cache.
 *
 * <p>Read-only by default: the write operation is mapped only when the user grants
 * {@code management.endpoint.retries.access=unrestricted}. Cache keys, failback task keys and exception
 * messages may hold secrets (a method argument, a token echoed in an error), so they are masked as
 * {@code ******} unless {@code management.endpoint.retries.show-values} lets them through; exception
 * types are always shown.
 * This technology-neutral endpoint (used over JMX) treats {@link Show#WHEN_AUTHORIZED} as shown, as
 * Boot's own endpoints do; over HTTP, {@link RetriesEndpointWebExtension} checks the principal and roles
 * and answers with proper statuses.
 *
 * <p>Reading never creates an instance or a failback executor: unknown names are reported as unknown,
 * and the {@code failback} part appears only once the application has asked for the instance's
 * executor. Thread-safe.
 */
@Endpoint(id = "retries", defaultAccess = Access.READ_ONLY)
public class RetriesEndpoint {

	/** Action that opens the circuit breaker by hand; it stays open until closed by hand. */
	public static final String OPEN_CIRCUIT = "open-circuit";

	/** Action that closes the circuit breaker by hand, with fresh counts. */
	public static final String CLOSE_CIRCUIT = "close-circuit";

	/** Action that removes every context from the stateful-retry context cache. */
	public static final String CLEAR_CACHE = "clear-cache";

	private final RetryRegistry registry;

	private final Show showValues;

	private final RetriesDescriber describer;

	private final @Nullable RetryCluster cluster;

	/**
	 * @param registry the registry whose instances are shown
	 * @param showValues when cache keys, failback task keys and exception messages are shown unmasked
	 * @param timeSource the clock of the registry, to compute the age of cache entries
	 */
	public RetriesEndpoint(RetryRegistry registry, Show showValues, TimeSource timeSource) {
		this(registry, showValues, timeSource, null);
	}

	/**
	 * @param registry the registry whose instances are shown
	 * @param showValues when cache keys, failback task keys and exception messages are shown unmasked
	 * @param timeSource the clock of the registry, to compute the age of cache entries
	 * @param cluster the cluster through which the replicas share state, or {@code null}: shown as
	 * {@code cluster}, and the budgets and circuits it shares carry {@code "scope": "cluster"}
	 */
	public RetriesEndpoint(RetryRegistry registry, Show showValues, TimeSource timeSource,
			@Nullable RetryCluster cluster) {
		this.registry = Objects.requireNonNull(registry, "registry must not be null");
		this.showValues = Objects.requireNonNull(showValues, "showValues must not be null");
		this.describer = new RetriesDescriber(Objects.requireNonNull(timeSource, "timeSource must not be null"), cluster);
		this.cluster = cluster;
	}

	/** @return every instance created so far, in name order */
	@ReadOperation
	public RetriesDescriptor retries() {
		return retries(this.showValues.isShown(true));
	}

	/**
	 * @param name the instance name
	 * @return the instance in detail, or {@code null} (404 over HTTP) if no instance has that name
	 */
	@ReadOperation
	public @Nullable RetryInstanceDescriptor retry(@Selector String name) {
		return retry(name, this.showValues.isShown(true));
	}

	/** The form of a write's body, given in every answer to a body that is not it. */
	public static final String EXPECTED_BODY = "{\"action\": \"" + OPEN_CIRCUIT + "\" | \"" + CLOSE_CIRCUIT + "\" | \""
			+ CLEAR_CACHE + "\"}";

	/** The longest piece of a request that an error message quotes: a message never echoes unbounded input. */
	static final int MAX_QUOTED_LENGTH = 64;

	/**
	 * Runs an action on an instance.
	 * @param name the instance name
	 * @param action {@value #OPEN_CIRCUIT}, {@value #CLOSE_CIRCUIT} or {@value #CLEAR_CACHE}; {@code null} when the
	 * body has none, which is answered with the expected form
	 * @return the instance after the action (summary view)
	 * @throws InvalidEndpointRequestException if no instance has that name, the action is missing or unknown, or a
	 * circuit action names an instance without a circuit breaker
	 * @throws ContextCacheNotClearedException if {@value #CLEAR_CACHE} cleared this replica's contexts but not the
	 * shared ones (the cluster engine did not answer in time, or failed)
	 */
	@WriteOperation
	public RetryInstanceDescriptor perform(@Selector String name, @Nullable String action) {
		RetryTemplate template = this.registry.find(name).orElseThrow(() -> invalid(unknownInstance(name)));
		return perform(template, action);
	}

	/**
	 * @param input a piece of the request, e.g. an action or an instance name
	 * @return the input, cut to {@value #MAX_QUOTED_LENGTH} characters with an ellipsis when longer
	 */
	static String quoted(String input) {
		return (input.length() <= MAX_QUOTED_LENGTH) ? input
				: input.substring(0, MAX_QUOTED_LENGTH) + "… (" + input.length() + " characters)";
	}

	/**
	 * @param showValues whether cache keys, failback task keys and exception messages are shown unmasked
	 * @return every instance created so far, in name order (summary view)
	 */
	public RetriesDescriptor retries(boolean showValues) {
		Map<String, RetryInstanceDescriptor> instances = new LinkedHashMap<>();
		for (String name : this.registry.names()) {
			this.registry.find(name)
				.ifPresent((template) -> instances.put(name, describe(template, false, showValues)));
		}
		return new RetriesDescriptor(instances, (this.cluster != null) ? cluster(this.cluster) : null);
	}

	/**
	 * @param name the instance name
	 * @param showValues whether cache keys, failback task keys and exception messages are shown unmasked
	 * @return the instance in detail, or {@code null} if no instance has that name
	 */
	public @Nullable RetryInstanceDescriptor retry(String name, boolean showValues) {
		return this.registry.find(name).map((template) -> describe(template, true, showValues)).orElse(null);
	}

	/**
	 * @param name the instance name
	 * @return whether an instance of that name exists (without creating one)
	 */
	boolean hasInstance(String name) {
		return this.registry.find(name).isPresent();
	}

	/**
	 * @param name the unknown instance name
	 * @return the message that says so and lists the known names
	 */
	String unknownInstance(String name) {
		return "No retry instance named '" + quoted(name) + "'; known instances: " + this.registry.names();
	}

	private RetryInstanceDescriptor perform(RetryTemplate template, @Nullable String action) {
		if (action == null) {
			throw invalid("The request body has no action; expected " + EXPECTED_BODY);
		}
		switch (action) {
			case OPEN_CIRCUIT -> circuitBreaker(template, action).forceOpen();
			case CLOSE_CIRCUIT -> circuitBreaker(template, action).close();
			case CLEAR_CACHE -> clearCache(template);
			default -> throw invalid("Unknown action '" + quoted(action) + "' for retry instance '" + template.getName()
					+ "'; use " + OPEN_CIRCUIT + ", " + CLOSE_CIRCUIT + " or " + CLEAR_CACHE);
		}
		return describe(template, false, false);
	}

	private static void clearCache(RetryTemplate template) {
		if (!template.getContextCache().tryClear()) {
			throw new ContextCacheNotClearedException("The shared context cache of retry instance '" + template.getName()
					+ "' could not be cleared: the cluster engine was unreachable, slower than retry.cluster.timeout, or "
					+ "failed. This replica's local contexts were cleared; the shared ones remain. Try again once the "
					+ "cluster is reachable (\"cluster\" in GET /actuator/retries).");
		}
	}

	private RetryInstanceDescriptor describe(RetryTemplate template, boolean detailed, boolean showValues) {
		return this.describer.describe(template, this.registry.findFailback(template.getName()).orElse(null), detailed,
				showValues);
	}

	private static RetriesDescriptor.Cluster cluster(RetryCluster cluster) {
		ClusterStatus status = cluster.status();
		java.time.Duration unanswered = cluster.unansweredFor();
		return new RetriesDescriptor.Cluster(status.engine(), status.members(), status.reachable(), status.fallbacks(),
				status.undecodableEntries(), status.withheldAttributes(), status.droppedSignals(), status.pendingWriteBacks(),
				status.droppedWriteBacks(), (unanswered != null) ? Durations.approximate(unanswered) : null);
	}

	private static CircuitBreaker circuitBreaker(RetryTemplate template, String action) {
		CircuitBreaker breaker = template.getCircuitBreaker();
		if (breaker == null) {
			throw invalid("Retry instance '" + template.getName() + "' has no circuit breaker, so '" + action
					+ "' does not apply; enable one with retry.instances." + template.getName()
					+ ".circuit-breaker.enabled=true");
		}
		return breaker;
	}

	private static InvalidEndpointRequestException invalid(String message) {
		return new InvalidEndpointRequestException(message, message);
	}

}
