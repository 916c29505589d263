package dev.retrykit.spring.boot.http.client;

import java.io.IOException;

import dev.retrykit.context.RetryContext;
import dev.retrykit.RetryFunction;
import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpRequest;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpResponse;
import org.springframework.http.client.support.HttpRequestWrapper;

/**
 * One retried call of a blocking client: each attempt sends the buffered request again (the interceptor chain
 * buffers every body, so every body can be sent again). A failed attempt's response is read (its first
 * {@value RetriedStatusException#MAX_BODY} bytes) and closed at once, so its pooled connection is back in the pool
 * before the backoff; when the call ends with it, the client gets a copy made of what was read. Stateless between
 * attempts, so the copies of a hedged call may run side by side.
 */
record BlockingHttpCall(HttpRetryRoute route, HttpRequest request, byte[] body, ClientHttpRequestExecution execution,
		@Nullable ObservedAttempts observations) {

	/** One attempt, with the call as its argument: no lambda is allocated per call. */
	private static final RetryFunction<BlockingHttpCall, ClientHttpResponse, IOException> ATTEMPT = BlockingHttpCall::attempt;

	/**
	 * Runs the call on the route's template.
	 * @return the accepted response, or a copy of the last failed attempt's when the attempts ran out on a status
	 * @throws IOException the last I/O failure
	 */
	static ClientHttpResponse execute(HttpRetryRoute route, HttpRequest request, byte[] body,
			ClientHttpRequestExecution execution, @Nullable ObservedAttempts observations) throws IOException {
		Observation.Scope vetoed = (observations != null) ? observations.leaveVetoedScope() : null;
		try {
			return route.template()
				.execute(ATTEMPT, new BlockingHttpCall(route, request, body, execution, observations));
		}
		catch (RetriedStatusException ex) {
			if (ex.response() instanceof ClientHttpResponse last) {
				return last;
			}
			throw ex;
		}
		finally {
			if (vetoed != null) {
				vetoed.makeCurrent();
			}
		}
	}

	private ClientHttpResponse attempt(RetryContext context) throws IOException {
		int attempt = context.getRetryCount() + 1;
		ClientHttpResponse response;
		if (this.observations != null) {
			response = this.observations.exchange(this.request, original -> sent(original, attempt), this.body,
					this.execution);
		}
		else {
			response = this.execution.execute(sent(this.request, attempt), this.body);
		}
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
		BufferedResponse failed = BufferedResponse.readAndClose(response);
		throw new RetriedStatusException(this.request.getMethod(), this.request.getURI(), failed.getStatusCode(),
				failed.getHeaders(), failed.bodyBytes(), failed);
	}

	private HttpRequest sent(HttpRequest original, int attempt) {
		return (attempt == 1) ? original : new AttemptRequest(original, this.route.attemptHeader(), attempt);
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
