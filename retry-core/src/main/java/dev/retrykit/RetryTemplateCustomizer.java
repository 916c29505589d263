package dev.retrykit;

import java.util.Objects;
import java.util.function.Consumer;

/**
 * Adjusts the builder of a template that a {@link RetryRegistry} creates, after the configuration was
 * applied: add a listener, swap the context cache, tweak the config. Implementations must be
 * thread-safe: templates may be created at run time when a new name is first used.
 */
@FunctionalInterface
public interface RetryTemplateCustomizer {

	/**
	 * Changes the builder of an instance before it is built.
	 * @param name the instance being created
	 * @param builder its builder, already holding the instance's configuration
	 */
	void customize(String name, RetryTemplateBuilder builder);

	/**
	 * A customizer for one instance only.
	 * @param name the instance name
	 * @param customizer what to do with its builder
	 * @return the customizer
	 */
	static RetryTemplateCustomizer forInstance(String name, Consumer<RetryTemplateBuilder> customizer) {
		Objects.requireNonNull(name, "name must not be null");
		Objects.requireNonNull(customizer, "customizer must not be null");
		return (instance, builder) -> {
			if (instance.equals(name)) {
				customizer.accept(builder);
			}
		};
	}

}
