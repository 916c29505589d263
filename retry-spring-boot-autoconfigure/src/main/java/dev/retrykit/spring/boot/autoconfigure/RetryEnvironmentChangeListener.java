package dev.retrykit.spring.boot.autoconfigure;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.context.ApplicationListener;

/**
 * Runs the {@link RetryReconfigurer} when Spring Cloud reports changed environment keys (a refresh from
 * a config server or a Kubernetes config map) and one of them is under {@code retry.}. A rejected change
 * was already logged and counted; it is not rethrown, so that the rest of the refresh goes on.
 * Registered only when {@code spring-cloud-context} is on the class path.
 */
final class RetryEnvironmentChangeListener implements ApplicationListener<EnvironmentChangeEvent> {

	/** The event's class name, for {@code @ConditionalOnClass}: Spring Cloud is an optional dependency. */
	static final String EVENT = "org.springframework.cloud.context.environment.EnvironmentChangeEvent";

	private final ObjectProvider<RetryReconfigurer> reconfigurer;

	RetryEnvironmentChangeListener(ObjectProvider<RetryReconfigurer> reconfigurer) {
		this.reconfigurer = reconfigurer;
	}

	@Override
	public void onApplicationEvent(EnvironmentChangeEvent event) {
		if (event.getKeys().stream().noneMatch(key -> key.startsWith("retry."))) {
			return;
		}
		RetryReconfigurer target = this.reconfigurer.getIfAvailable();
		if (target == null) {
			return;
		}
		try {
			target.reconfigure();
		}
		catch (RuntimeException ex) {
			// Logged with its failure analysis and counted by the reconfigurer; the running configuration stays.
		}
	}

}
