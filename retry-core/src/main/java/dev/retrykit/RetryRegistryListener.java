package dev.retrykit;

/**
 * Told when a {@link RetryRegistry} creates an instance: at build time for declared instances, and at
 * run time when a name is used for the first time. Used to bind metrics to instances created late.
 * Implementations must be thread-safe and should be quick; exceptions are caught and logged.
 */
@FunctionalInterface
public interface RetryRegistryListener {

	/**
	 * @param template the new instance
	 */
	void onInstanceAdded(RetryTemplate template);

}
