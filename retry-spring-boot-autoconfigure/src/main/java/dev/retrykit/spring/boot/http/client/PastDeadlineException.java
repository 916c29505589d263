package dev.retrykit.spring.boot.http.client;

import java.io.InterruptedIOException;
import java.io.Serial;

import dev.retrykit.Deadline;
import dev.retrykit.spring.boot.http.HopHeaders;
import org.jspecify.annotations.Nullable;

/**
 * The failure of an HTTP attempt that was not sent because less than a millisecond was left before the deadline its
 * call runs under ({@link dev.retrykit.Deadline}): nobody would wait for its answer. An I/O failure, so that clients
 * report it as they report a timeout ({@code ResourceAccessException}, {@code WebClientRequestException}). The
 * engine itself refuses a call whose deadline passed before it opened ({@link dev.retrykit.DeadlineExceededException})
 * and any attempt or backoff that would end after it; this covers an attempt that starts in the last millisecond.
 * Has no stack trace.
 */
public final class PastDeadlineException extends InterruptedIOException {

	@Serial
	private static final long serialVersionUID = 1L;

	private PastDeadlineException(String method, String uri) {
		super("Less than a millisecond left before the deadline: not sent, " + method + " " + uri);
	}

	/**
	 * The time left for an attempt about to be sent, in the whole milliseconds its deadline header says: the one
	 * check of every client (HttpClient 5's handler, RestClient's and WebClient's attempts).
	 * @param deadline the deadline the attempt runs under, or {@code null} for none
	 * @param method the request's method
	 * @param uri the request's URI, turned into text only for the failure (not per attempt)
	 * @return the whole milliseconds left ({@link HopHeaders#millisLeft}), or {@code -1} under no deadline
	 * @throws PastDeadlineException if less than a millisecond is left: the attempt is not to be sent
	 */
	static long millisLeft(@Nullable Deadline deadline, String method, Object uri) throws PastDeadlineException {
		if (deadline == null) {
			return -1;
		}
		long left = HopHeaders.millisLeft(deadline);
		if (left < 0) {
			throw new PastDeadlineException(method, uri.toString());
		}
		return left;
	}

	@Override
	public synchronized Throwable fillInStackTrace() {
		return this;
	}

}
