package dev.retrykit.spring.boot.autoconfigure;

import dev.retrykit.RetryRegistry;
import dev.retrykit.RetryRegistryBuilder;

/** Builds the registry, reporting what the mapper could not check on its own as property failures. */
final class RetryRegistryFactory {

	private RetryRegistryFactory() {
	}

	static RetryRegistry build(RetryRegistryBuilder builder) {
		try {
			return builder.build();
		}
		catch (IllegalStateException ex) {
			// Instances that share a budget name must agree on its settings.
			throw new InvalidRetryPropertyException("retry.instances.*.budget", null, String.valueOf(ex.getMessage()),
					"Give every instance that shares a budget name the same max-tokens and token-ratio, "
							+ "or give them different budget names.", ex);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidRetryPropertyException("retry", null, String.valueOf(ex.getMessage()),
					"Review the retry.* properties named in the message.", ex);
		}
	}

}
