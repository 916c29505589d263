package dev.retrykit;

/**
 * Told when a {@link RetryRegistry} creates an instance: at build time for declared instances, and at
 * run time when a name is used for the first time; and when {@link RetryRegistry#replace} or
 * {@link RetryRegistry#replaceAll} changes an instance's configuration (once the whole change is in). Used to bind metrics to instances created late.
 * Implementations must be thread-safe and should be quick; exceptions are caught and logged.
 */
@FunctionalInterface
public interface RetryRegistryListener {

	/**
	 * Told when the registry creates an instance (and, on registration, of each instance that exists already).
	 * @param template the new instance
	 */
	void onInstanceAdded(RetryTemplate template);

	/**
	 * Told after {@link RetryRegistry#replace} or {@link RetryRegistry#replaceAll} changed an existing
	 * instance's configuration (a replace of a name not used yet creates the instance and calls
	 * {@link #onInstanceAdded} instead). Does nothing by default.
	 * @param template the instance, already on its new configuration
	 * @param previous its configuration before the change
	 */
	default void onInstanceReplaced(RetryTemplate template, RetryConfig previous) {
	}

}
