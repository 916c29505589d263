package dev.retrykit.spring.boot.autoconfigure;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import dev.retrykit.RetryConfig;
import dev.retrykit.RetryRegistry;
import dev.retrykit.RetryRegistryBuilder;
import dev.retrykit.VirtualTime;
import dev.retrykit.spi.DelayHintExtractor;
import dev.retrykit.spi.StatusExtractor;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.env.ConfigurableEnvironment;

/**
 * Applies a changed {@code retry.*} configuration to the running {@link RetryRegistry}: rebinds all of
 * {@code retry.*} from the environment, validates all of it as at startup, and only then replaces the
 * instances whose effective configuration changed (and creates the instances that are new), all in one
 * {@link RetryRegistry#replaceAll}, which derives every replaced instance (with the {@code @Retryable}
 * methods' inline attributes that follow it) before it swaps any. A change that is invalid, in the
 * properties or in what a method derives from them, is rejected as a whole: nothing is replaced, the
 * running configuration stays, and the failure is logged (with the failure analysis text startup would
 * show where there is one) and counted. With Spring Cloud on the class path this runs on every
 * {@code EnvironmentChangeEvent} touching a {@code retry.} key; otherwise call {@link #reconfigure()} from
 * your own refresh hook.
 *
 * <p>An instance counts as changed when its effective configuration is not {@linkplain RetryConfig#equals
 * equal} to the one last applied. Instances removed from the properties keep running on their last
 * configuration, and {@code retry.timer.*} and {@code retry.cluster.*} are validated but take effect only on restart.
 * Thread-safe: reconfigurations run one at a time.
 */
public final class RetryReconfigurer {

	private static final Log LOGGER = LogFactory.getLog(RetryReconfigurer.class);

	private final RetryRegistry registry;

	private final ConfigurableEnvironment environment;

	private final ConfigurableListableBeanFactory beanFactory;

	private final List<StatusExtractor> statusExtractors;

	private final @Nullable DelayHintExtractor retryAfter;

	private final AtomicLong applied = new AtomicLong();

	private final AtomicLong rejected = new AtomicLong();

	/** Told the bound properties after each applied reconfiguration: the parts of retry.* beside the instances. */
	private final List<Consumer<RetryProperties>> followers = new CopyOnWriteArrayList<>();

	/** The effective configuration last applied to each declared instance. */
	private @Nullable Map<String, RetryConfig> current;

	RetryReconfigurer(RetryRegistry registry, ConfigurableEnvironment environment,
			ConfigurableListableBeanFactory beanFactory, List<StatusExtractor> statusExtractors,
			@Nullable DelayHintExtractor retryAfter) {
		this.registry = registry;
		this.environment = environment;
		this.beanFactory = beanFactory;
		this.statusExtractors = List.copyOf(statusExtractors);
		this.retryAfter = retryAfter;
	}

	/**
	 * Records the configuration the registry was built from, against which later changes are found.
	 * Called once the context is ready, before any change can arrive.
	 */
	synchronized void recordStartupConfiguration() {
		if (this.current == null) {
			this.current = candidate();
		}
	}

	/**
	 * Rebinds, validates and applies {@code retry.*} as it now is in the environment.
	 * @return the names of the instances changed or created, sorted; empty when nothing changed
	 * @throws RuntimeException if the change is invalid (an {@code InvalidRetryPropertyException}, Boot's
	 * {@code BindException} for an unknown key or a value that does not convert, or what a
	 * {@code @Retryable} method's inline attributes throw on the new configuration): it was logged,
	 * counted as rejected, and nothing was changed
	 */
	public synchronized Set<String> reconfigure() {
		recordStartupConfiguration();
		Map<String, RetryConfig> next;
		RetryProperties properties;
		try {
			properties = bound();
			next = candidate(properties);
		}
		catch (RuntimeException ex) {
			this.rejected.incrementAndGet();
			InvalidRetryPropertyException located = (ex instanceof InvalidRetryPropertyException invalid)
					? invalid.locatedIn(this.environment) : null;
			LOGGER.error(rejection((located != null) ? located : ex));
			throw (located != null) ? located : ex;
		}
		Map<String, RetryConfig> last = Objects.requireNonNull(this.current);
		Map<String, RetryConfig> changes = new TreeMap<>();
		next.forEach((name, config) -> {
			if (!config.equals(last.get(name))) {
				changes.put(name, config);
			}
		});
		if (!changes.isEmpty()) {
			try {
				this.registry.replaceAll(changes);
			}
			catch (RuntimeException ex) {
				// A @Retryable method's inline attributes that do not fit the new configuration of its instance:
				// replaceAll derived every instance before swapping any, so none was changed.
				this.rejected.incrementAndGet();
				LOGGER.error(rejection(ex), ex);
				throw ex;
			}
			Map<String, RetryConfig> applied = new LinkedHashMap<>(last);
			applied.putAll(changes);
			this.current = applied;
			LOGGER.info("Applied the changed retry configuration of " + changes.keySet());
		}
		for (Consumer<RetryProperties> follower : this.followers) {
			follower.accept(properties);
		}
		this.applied.incrementAndGet();
		return new TreeSet<>(changes.keySet());
	}

	/**
	 * Tells {@code follower} the bound, validated {@code retry.*} after each applied reconfiguration (after the
	 * instances were replaced): for settings beside the instances' own that follow live changes, such as
	 * {@code retry.http.attempt-header}.
	 * @param follower takes the properties; must not throw
	 */
	void follow(Consumer<RetryProperties> follower) {
		this.followers.add(Objects.requireNonNull(follower, "follower must not be null"));
	}

	/** @return how many reconfigurations were applied (also those that changed no instance) */
	public long getAppliedCount() {
		return this.applied.get();
	}

	/** @return how many reconfigurations were rejected as invalid */
	public long getRejectedCount() {
		return this.rejected.get();
	}

	/** Maps {@code retry.*} onto a throwaway registry on virtual time, as startup validation does. */
	private Map<String, RetryConfig> candidate() {
		return candidate(bound());
	}

	/** Binds {@code retry.*} and checks what is checked beside the instances' configurations, as at startup. */
	private RetryProperties bound() {
		RetryProperties properties = RetryPropertiesValidator.bind(this.environment, this.beanFactory);
		RetryPropertiesValidator.checkTimer(properties);
		ClusterSettings.validate(properties);
		HttpClaims.of(properties);
		HttpHeaderNames.check(properties.getHttp());
		return properties;
	}

	private Map<String, RetryConfig> candidate(RetryProperties properties) {
		RetryRegistryBuilder builder = RetryRegistry.builder().virtualTime(new VirtualTime());
		new RetryPropertiesMapper(this.beanFactory, this.beanFactory.getBeanClassLoader(), this.statusExtractors,
				this.retryAfter).applyTo(properties, builder);
		RetryRegistry candidate = RetryRegistryFactory.build(builder);
		Map<String, RetryConfig> configs = new LinkedHashMap<>();
		for (String name : new TreeSet<>(candidate.declaredNames())) {
			configs.put(name, candidate.template(name).getConfig());
		}
		return configs;
	}

	private static String rejection(Throwable failure) {
		FailureAnalysis analysis = new RetryFailureAnalyzer().analyze(failure);
		String description = (analysis != null) ? analysis.getDescription() : String.valueOf(failure.getMessage());
		String action = (analysis != null) ? analysis.getAction() : "Review the retry.* properties named in the message.";
		return "Rejected a change of the retry configuration; the running configuration stays.\n\nDescription:\n\n"
				+ description + "\n\nAction:\n\n" + action;
	}

}
