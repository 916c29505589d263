package dev.retrykit.spring.boot.autoconfigure;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;

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
 * instances whose effective configuration changed (and creates the instances that are new), with
 * {@link RetryRegistry#replace}. An invalid change is rejected as a whole: nothing is replaced, the
 * running configuration stays, and the failure is logged with the failure analysis text startup would
 * show. With Spring Cloud on the class path this runs on every {@code EnvironmentChangeEvent} touching a
 * {@code retry.} key; otherwise call {@link #reconfigure()} from your own refresh hook.
 *
 * <p>An instance counts as changed when its effective configuration, as {@link RetryConfig#toString()}
 * shows it, differs from the one last applied. Instances removed from the properties keep running on
 * their last configuration, and {@code retry.timer.*} is validated but takes effect only on restart.
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

	/** The effective configuration last applied to each declared instance, as its text. */
	private @Nullable Map<String, String> current;

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
			this.current = texts(candidate());
		}
	}

	/**
	 * Rebinds, validates and applies {@code retry.*} as it now is in the environment.
	 * @return the names of the instances changed or created, sorted; empty when nothing changed
	 * @throws RuntimeException if the change is invalid (an {@code InvalidRetryPropertyException}, or Boot's
	 * {@code BindException} for an unknown key or a value that does not convert): it was logged with its
	 * failure analysis, counted as rejected, and nothing was changed
	 */
	public synchronized Set<String> reconfigure() {
		recordStartupConfiguration();
		Map<String, RetryConfig> next;
		try {
			next = candidate();
		}
		catch (RuntimeException ex) {
			this.rejected.incrementAndGet();
			InvalidRetryPropertyException located = (ex instanceof InvalidRetryPropertyException invalid)
					? invalid.locatedIn(this.environment) : null;
			LOGGER.error(rejection((located != null) ? located : ex));
			throw (located != null) ? located : ex;
		}
		Map<String, String> texts = new LinkedHashMap<>(this.current);
		Set<String> changed = new TreeSet<>();
		try {
			next.forEach((name, config) -> {
				if (!config.toString().equals(texts.get(name))) {
					this.registry.replace(name, config);
					texts.put(name, config.toString());
					changed.add(name);
				}
			});
		}
		catch (RuntimeException ex) {
			// Only a @Retryable method's inline attributes that do not fit the new configuration get here.
			this.rejected.incrementAndGet();
			LOGGER.error("Rejected the change of the retry configuration at an instance after " + changed
					+ ", which were applied: " + ex.getMessage(), ex);
			throw ex;
		}
		finally {
			this.current = texts;
		}
		this.applied.incrementAndGet();
		if (!changed.isEmpty()) {
			LOGGER.info("Applied the changed retry configuration of " + changed);
		}
		return changed;
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
		RetryProperties properties = RetryPropertiesValidator.bind(this.environment, this.beanFactory);
		RetryPropertiesValidator.checkTimer(properties);
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

	private static Map<String, String> texts(Map<String, RetryConfig> configs) {
		Map<String, String> texts = new LinkedHashMap<>();
		configs.forEach((name, config) -> texts.put(name, config.toString()));
		return texts;
	}

	private static String rejection(Throwable failure) {
		FailureAnalysis analysis = new RetryFailureAnalyzer().analyze(failure);
		String description = (analysis != null) ? analysis.getDescription() : String.valueOf(failure.getMessage());
		String action = (analysis != null) ? analysis.getAction() : "Review the retry.* properties named in the message.";
		return "Rejected a change of the retry configuration; the running configuration stays.\n\nDescription:\n\n"
				+ description + "\n\nAction:\n\n" + action;
	}

}
