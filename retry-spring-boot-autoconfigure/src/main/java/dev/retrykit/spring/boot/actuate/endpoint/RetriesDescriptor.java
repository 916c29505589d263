package dev.retrykit.spring.boot.actuate.endpoint;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The response of {@code GET /actuator/retries}: every instance created so far, by name, in name order.
 * Immutable.
 *
 * @param instances the instances by name
 */
public record RetriesDescriptor(Map<String, RetryInstanceDescriptor> instances) {

	/**
	 * @param instances the instances by name; copied, keeping its iteration order
	 */
	public RetriesDescriptor {
		instances = Collections.unmodifiableMap(new LinkedHashMap<>(instances));
	}

}
