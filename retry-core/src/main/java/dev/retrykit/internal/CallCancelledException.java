package dev.retrykit.internal;

import java.util.concurrent.CancellationException;

/** The cancellation of an async call: a {@link CancellationException} without a stack trace. Immutable. */
final class CallCancelledException extends CancellationException {

	private static final long serialVersionUID = 1L;

	private final String name;

	CallCancelledException(String name) {
		this.name = name;
	}

	/** Built when asked for: most cancellations are never read, and cancelling stays cheap. */
	@Override
	public String getMessage() {
		return "Retry '" + this.name + "' was cancelled";
	}

	@Override
	public synchronized Throwable fillInStackTrace() {
		return this;
	}

}
