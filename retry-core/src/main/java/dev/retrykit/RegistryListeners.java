package dev.retrykit;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A {@link RetryRegistry}'s listeners, and the instances announced to them: each listener hears of every
 * instance exactly once, whether the instance or the listener came first. A listener that throws is logged
 * and the others are still told. Thread-safe.
 */
final class RegistryListeners {

	private static final System.Logger LOGGER = System.getLogger(RetryRegistry.class.getName());

	private final List<RetryRegistryListener> listeners = new CopyOnWriteArrayList<>();

	/**
	 * The instances announced to the listeners, in order. Guarded by itself: announcing a new instance and
	 * adding a listener (which replays them) exclude each other.
	 */
	private final List<RetryTemplate> announced = new ArrayList<>();

	/**
	 * Adds a listener and tells it at once of every instance announced so far.
	 * @param listener the listener
	 */
	void add(RetryRegistryListener listener) {
		synchronized (this.announced) {
			this.listeners.add(listener);
			this.announced.forEach(template -> added(listener, template));
		}
	}

	/**
	 * Tells the listeners of an instance just created; call once per instance, outside the registry's lock.
	 * @param template the new instance
	 */
	void announce(RetryTemplate template) {
		synchronized (this.announced) {
			this.announced.add(template);
			for (RetryRegistryListener listener : this.listeners) {
				added(listener, template);
			}
		}
	}

	/**
	 * Tells the listeners that an instance was swapped to a new configuration.
	 * @param template the instance, on its new configuration
	 * @param previous its configuration before the change
	 */
	void replaced(RetryTemplate template, RetryConfig previous) {
		for (RetryRegistryListener listener : this.listeners) {
			try {
				listener.onInstanceReplaced(template, previous);
			}
			catch (RuntimeException ex) {
				LOGGER.log(Level.WARNING, () -> "Retry registry listener " + listener
						+ " failed for replaced instance '" + template.getName() + "'", ex);
			}
		}
	}

	private static void added(RetryRegistryListener listener, RetryTemplate template) {
		try {
			listener.onInstanceAdded(template);
		}
		catch (RuntimeException ex) {
			LOGGER.log(Level.WARNING, () -> "Retry registry listener " + listener + " failed for instance '"
					+ template.getName() + "'", ex);
		}
	}

}
