package dev.retrykit.spring.boot.http.client;

import java.io.IOException;
import java.util.Objects;

import dev.retrykit.Deadline;
import org.apache.hc.client5.http.classic.ExecChain;
import org.apache.hc.client5.http.classic.ExecChainHandler;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.protocol.HttpClientContext;
import org.apache.hc.core5.http.ClassicHttpRequest;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.HttpException;
import org.apache.hc.core5.util.Timeout;

/**
 * The last word of a blocking request sent through Apache HttpClient 5 under a {@link Deadline}, said once its
 * connection is leased and connected, just before the request leaves: the wait for the answer becomes what is
 * left <em>now</em> (never more than the request's configured response timeout), and the deadline header the
 * request carries says the milliseconds left now. Without it, an attempt that waited for a pooled connection
 * would still wait for its answer as long as was left before that wait, and tell the next service a deadline
 * later than the caller's by that wait. A request whose deadline passed during the wait is not sent
 * ({@link PastDeadlineException}). Requests sent under no deadline pass through untouched. Installed after
 * HttpClient's connect step ({@code ChainElement.CONNECT}) by the auto-configuration while
 * {@code retry.http.propagation.enabled} is on. Thread-safe.
 */
public final class DeadlineExecHandler implements ExecChainHandler {

	/** The name the handler is installed under in HttpClient's execution chain. */
	public static final String NAME = "retrykit-deadline";

	private final String deadlineHeader;

	/**
	 * Makes the handler.
	 * @param deadlineHeader the header that carries the time left ({@code retry.http.deadline-header}); rewritten
	 * where the request carries it
	 */
	public DeadlineExecHandler(String deadlineHeader) {
		this.deadlineHeader = Objects.requireNonNull(deadlineHeader, "deadlineHeader must not be null");
	}

	@Override
	public ClassicHttpResponse execute(ClassicHttpRequest request, ExecChain.Scope scope, ExecChain chain)
			throws IOException, HttpException {
		Deadline deadline = Deadline.current();
		if (deadline == null) {
			return chain.proceed(request, scope);
		}
		long millis = PastDeadlineException.millisLeft(deadline, request.getMethod(), request.getRequestUri());
		HttpClientContext context = scope.clientContext;
		RequestConfig config = context.getRequestConfigOrDefault();
		Timeout response = config.getResponseTimeout();
		if (response == null || response.isDisabled() || response.toMilliseconds() > millis) {
			context.setRequestConfig(RequestConfig.copy(config).setResponseTimeout(Timeout.ofMilliseconds(millis)).build());
		}
		if (request.containsHeader(this.deadlineHeader)) {
			request.setHeader(this.deadlineHeader, Long.toString(millis));
		}
		return chain.proceed(request, scope);
	}

	@Override
	public String toString() {
		return "DeadlineExecHandler[" + this.deadlineHeader + "]";
	}

}
