package shop;

import static dev.retrykit.RetryContext.current;

import java.util.function.Supplier;

import dev.retrykit.RetryContext;

class Probe {

	final Supplier<RetryContext> contexts = RetryContext::current;

	int retries() {
		return current().getRetryCount() + dev.retrykit.RetryContext.current().getRetryCount();
	}

}
