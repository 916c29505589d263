package dev.retrykit.spring.boot.http.client;

import java.io.IOException;

import dev.retrykit.RetryCallback;
import dev.retrykit.RetryContext;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpRequest;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpResponse;
import org.springframework.http.client.support.HttpRequestWrapper;

/**
 * One retried call of a blocking client: each attempt sends the buffered request again (the interceptor chain
 * buffers every body, so every body can be sent again). The response of a failed attempt stays open until the
 * next attempt starts, and is closed then; the call's last one is handed to the client when the call ends with it,
 * and closed when the call ends otherwise. A hedging instance's copies run side by side, so each failed copy's
 * response is closed at once. Used by one call; the copies of a hedged call only read its fields.
 */
final class BlockingHttpCall implements RetryCallback<ClientHttpResponse, IOException> {

	private final HttpRetryRoute route;

	private final HttpRequest request;

	private final byte[] body;

	private final ClientHttpRequestExecution execution;

	private final boolean hedged;

	/** The failure of the last failed attempt, whose response is still open; not hedged calls only. */
	private @Nullable RetriedStatusException held;

	private BlockingHttpCall(HttpRetryRoute route, HttpRequest request, byte[] body,
			ClientHttpRequestExecution execution) {
		this.route = route;
		this.request = request;
		this.body = body;
		this.execution = execution;
		this.hedged = route.hedges();
	}

	/**
	 * Runs the call on the route's template.
	 * @return the accepted response, or the last failed attempt's when the attempts ran out on a status
	 * @throws IOException the last I/O failure
	 */
	static ClientHttpResponse execute(HttpRetryRoute route, HttpRequest request, byte[] body,
			ClientHttpRequestExecution execution) throws IOException {
		BlockingHttpCall call = new BlockingHttpCall(route, request, body, execution);
		try {
			return route.template().execute(call);
		}
		catch (RetriedStatusException ex) {
			if (ex == call.held && ex.response() instanceof ClientHttpResponse last) {
				call.held = null;
				return last;
			}
			throw ex;
		}
		finally {
			call.releaseHeld();
		}
	}

	@Override
	public ClientHttpResponse doWithRetry(RetryContext context) throws IOException {
		int attempt = context.getRetryCount() + 1;
		if (!this.hedged) {
			releaseHeld();
		}
		HttpRequest sent = (attempt == 1) ? this.request : new AttemptRequest(this.request, this.route.attemptHeader(), attempt);
		ClientHttpResponse response = this.execution.execute(sent, this.body);
		boolean fails;
		try {
			fails = this.route.failsAttempt(response.getStatusCode().value());
		}
		catch (IOException | RuntimeException ex) {
			response.close();
			throw ex;
		}
		if (!fails) {
			return response;
		}
		RetriedStatusException failure = new RetriedStatusException(this.request.getMethod(), this.request.getURI(),
				response.getStatusCode(), response.getHeaders(), this.hedged ? null : response);
		if (this.hedged) {
			response.close();
		}
		else {
			this.held = failure;
		}
		throw failure;
	}

	private void releaseHeld() {
		RetriedStatusException failed = this.held;
		if (failed != null) {
			this.held = null;
			if (failed.response() instanceof ClientHttpResponse response) {
				response.close();
			}
		}
	}

	/** The request of an attempt after the first: the same request, with the attempt's number in a header. */
	private static final class AttemptRequest extends HttpRequestWrapper {

		private final HttpHeaders headers;

		AttemptRequest(HttpRequest request, String header, int attempt) {
			super(request);
			this.headers = new HttpHeaders();
			this.headers.putAll(request.getHeaders());
			this.headers.set(header, Integer.toString(attempt));
		}

		@Override
		public HttpHeaders getHeaders() {
			return this.headers;
		}

	}

}
