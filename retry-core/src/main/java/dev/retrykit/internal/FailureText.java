package dev.retrykit.internal;

import org.jspecify.annotations.Nullable;

/**
 * What retrykit keeps of a failure for later reading (recent events, failback task snapshots): its
 * type name and a bounded message, never the {@link Throwable} itself. A kept exception holds its
 * stack trace, its causes and whatever its message carried (a whole response body, say), so a ring
 * bounded in count was unbounded in bytes. Stateless and thread-safe.
 */
final class FailureText {

	/** The longest message kept, in characters; a longer one is cut and marked as truncated. */
	static final int MAX_MESSAGE_LENGTH = 256;

	private FailureText() {
	}

	/**
	 * @param failure a failure, or {@code null}
	 * @return its class name, or {@code null}; {@code Class.getName()} caches the name, so this
	 * allocates nothing after the first call for a type
	 */
	static @Nullable String typeName(@Nullable Throwable failure) {
		return (failure != null) ? failure.getClass().getName() : null;
	}

	/**
	 * @param failure a failure, or {@code null}
	 * @return its message, or {@code null}; a message longer than {@link #MAX_MESSAGE_LENGTH} is cut
	 * there and followed by {@code "... [truncated from N characters]"}. A {@code getMessage()} that
	 * throws yields a note naming what it threw, so that recording a failure never fails. Within the
	 * limit the message itself is returned: nothing is allocated.
	 */
	static @Nullable String boundedMessage(@Nullable Throwable failure) {
		if (failure == null) {
			return null;
		}
		String message;
		try {
			message = failure.getMessage();
		}
		catch (Throwable ex) {
			return "(getMessage() threw " + ex.getClass().getName() + ")";
		}
		if (message == null || message.length() <= MAX_MESSAGE_LENGTH) {
			return message;
		}
		return message.substring(0, MAX_MESSAGE_LENGTH) + "... [truncated from " + message.length() + " characters]";
	}

}
