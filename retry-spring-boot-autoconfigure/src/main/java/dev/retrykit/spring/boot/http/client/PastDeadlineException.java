package dev.retrykit.spring.boot.http.client;

import java.io.InterruptedIOException;
import java.io.Serial;
import java.net.URI;

import org.springframework.http.HttpMethod;

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

	PastDeadlineException(HttpMethod method, URI uri) {
		this(method.name() + " " + uri);
	}

	PastDeadlineException(String request) {
		super("Less than a millisecond left before the deadline: not sent, " + request);
	}

	@Override
	public synchronized Throwable fillInStackTrace() {
		return this;
	}

}
