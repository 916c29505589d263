package shop;

import dev.retrykit.RetryContext;
import dev.retrykit.RetryListener;

class AuditListener implements RetryListener {

	@Override
	public void onError(RetryContext context, Throwable failure) {
		System.out.println(context.getName() + " failed " + context.getRetryCount() + " times");
	}

	static String currentCall() {
		RetryContext context = RetryContext.current();
		return (context != null) ? context.getName() : "none";
	}

}
