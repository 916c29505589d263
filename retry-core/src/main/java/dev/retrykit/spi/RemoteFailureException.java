package dev.retrykit.spi;

import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * The last failure of a stateful context continued from a {@link RetryContextSnapshot}: the original
 * exception stayed on the replica where it happened (its class may not even exist here), so this one
 * carries its type and message. It has no stack trace. Immutable.
 */
public final class RemoteFailureException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	private final String failureType;

	private final @Nullable String failureMessage;

	/**
	 * @param failureType the class name of the original failure
	 * @param failureMessage its message, or {@code null}
	 */
	public RemoteFailureException(String failureType, @Nullable String failureMessage) {
		super(Objects.requireNonNull(failureType, "failureType must not be null")
				+ ((failureMessage != null) ? ": " + failureMessage : ""), null, false, false);
		this.failureType = failureType;
		this.failureMessage = failureMessage;
	}

	/** @return the class name of the original failure */
	public String getFailureType() {
		return this.failureType;
	}

	/** @return the message of the original failure, or {@code null} */
	public @Nullable String getFailureMessage() {
		return this.failureMessage;
	}

}
