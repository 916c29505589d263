package shop;

import dev.retrykit.*;

class Checkout {

	private final RetryTemplate template = RetryTemplate.of("checkout");

	String pay() {
		return this.template.execute(() -> {
			RetryContext context = RetryContext.current();
			CallOutcome previous = context.getOutcome();
			return context.getRetryCount() + " " + previous;
		});
	}

}
