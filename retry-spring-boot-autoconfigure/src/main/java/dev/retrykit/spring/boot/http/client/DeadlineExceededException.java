package dev.retrykit.spring.boot.http.client;

import java.io.InterruptedIOException;
import java.io.Serial;
import java.net.URI;

import org.springframework.http.HttpMethod;

/**
 * The failure of an HTTP attempt that was not sent, or not waited for any longer, because the deadline its call runs
 * under ({@link dev.retrykit.Deadline}) had passed: nobody waits for its answer any more. An I/O failure, so that
 * clients report it as they report a timeout ({@code ResourceAccessException}, {@code WebClientRequestException}).
 * Has no stack trace.
 */
public final class DeadlineExceededException extends InterruptedIOException {

	@Serial
	private static final long serialVersionUID = 1L;

	DeadlineExceededException(HttpMethod method, URI uri, boolean sent) {
		super((sent ? "No answer before the deadline to " : "Deadline passed before sending ") + method.name() + " "
				+ uri);
	}

	@Override
	public synchronized Throwable fillInStackTrace() {
		return this;
	}

}
