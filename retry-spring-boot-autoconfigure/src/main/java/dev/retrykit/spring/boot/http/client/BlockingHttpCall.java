package dev.retrykit.spring.boot.http.client;

import java.io.IOException;

import dev.retrykit.Deadline;
import dev.retrykit.DownstreamExhaustedException;
import dev.retrykit.RetryFunction;
import dev.retrykit.context.RetryContext;
import dev.retrykit.spring.boot.http.HopHeaders;
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
 * attempts, so the copies of a hedged call may run side by side; the response of a copy that lost (another copy won,
 * or the call had ended when it came) is closed, so its pooled connection goes back to the pool
 * ({@link HedgedResponses}).
 */
record BlockingHttpCall(HttpRetryRoute route, HttpRequest request, byte[] body, ClientHttpRequestExecution execution,
		@Nullable ObservedAttempts observations, @Nullable HedgedResponses hedged) {

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
		HedgedResponses hedged = HedgedResponses.forCall(route);
		ClientHttpResponse outcome = null;
		try {
			outcome = route.template()
				.execute(ATTEMPT, new BlockingHttpCall(route, request, body, execution, observations, hedged));
			return outcome;
		}
		catch (RetriedStatusException ex) {
			if (ex.response() instanceof ClientHttpResponse last) {
				return last;
			}
			throw ex;
		}
		catch (DownstreamExhaustedException ex) {
			if (ex.getCause() instanceof RetriedStatusException marked
					&& marked.response() instanceof ClientHttpResponse answer) {
				return answer;
			}
			throw ex;
		}
		finally {
			if (hedged != null) {
				hedged.end(outcome);
			}
			if (vetoed != null) {
				vetoed.makeCurrent();
			}
		}
	}

	private ClientHttpResponse attempt(RetryContext context) throws IOException {
		int attempt = context.getRetryCount() + 1;
		long millisLeft = millisLeft();
		ClientHttpResponse response;
		boolean outer = ClaimedAttempts.enter();
		try {
			response = send(attempt, millisLeft);
		}
		finally {
			ClaimedAttempts.leave(outer);
		}
		boolean fails;
		String exhausted;
		try {
			int status = response.getStatusCode().value();
			exhausted = this.route.exhaustedDownstream(status, response.getHeaders());
			fails = exhausted != null || this.route.failsAttempt(status);
		}
		catch (IOException | RuntimeException ex) {
			response.close();
			throw ex;
		}
		if (!fails) {
			return (this.hedged != null) ? this.hedged.offer(response) : response;
		}
		BufferedResponse failed = BufferedResponse.readAndClose(response);
		RetriedStatusException failure = new RetriedStatusException(this.request.getMethod(), this.request.getURI(),
				failed.getStatusCode(), failed.getHeaders(), failed.bodyBytes(), failed);
		throw (exhausted != null) ? new DownstreamExhaustedException(exhausted, failure) : failure;
	}

	private ClientHttpResponse send(int attempt, long millisLeft) throws IOException {
		if (this.observations != null) {
			return this.observations.exchange(this.request, original -> sent(original, attempt, millisLeft), this.body,
					this.execution);
		}
		return this.execution.execute(sent(this.request, attempt, millisLeft), this.body);
	}

	/**
	 * {@return the whole milliseconds left before the deadline current on this thread, or {@code -1} when there is
	 * none or propagation is off}
	 * @throws PastDeadlineException if less than a millisecond is left: the attempt is not sent
	 */
	private long millisLeft() throws PastDeadlineException {
		Deadline deadline = (this.route.hops() != null) ? Deadline.current() : null;
		return PastDeadlineException.millisLeft(deadline, this.request.getMethod().name(), this.request.getURI());
	}

	private HttpRequest sent(HttpRequest original, int attempt, long millisLeft) {
		HopHeaders hops = this.route.hops();
		if (attempt == 1 && (millisLeft < 0 || hops == null)) {
			return original;
		}
		AttemptRequest sent = new AttemptRequest(original);
		if (attempt > 1) {
			sent.headers.set(this.route.attemptHeader(), Integer.toString(attempt));
		}
		if (millisLeft >= 0 && hops != null) {
			sent.headers.set(hops.deadlineHeader(), Long.toString(millisLeft));
		}
		return sent;
	}

	/** The request of an attempt after the first, or under a deadline: the same request, with headers of its own. */
	private static final class AttemptRequest extends HttpRequestWrapper {

		private final HttpHeaders headers;

		AttemptRequest(HttpRequest request) {
			super(request);
			this.headers = new HttpHeaders();
			this.headers.putAll(request.getHeaders());
		}

		@Override
		public HttpHeaders getHeaders() {
			return this.headers;
		}

	}

}
