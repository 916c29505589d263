package dev.retrykit.spring.boot.http.client;

import java.io.IOException;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpRequest;
import org.springframework.http.client.ClientHttpRequest;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpResponse;
import org.springframework.http.client.observation.ClientHttpObservationDocumentation;
import org.springframework.http.client.observation.ClientRequestObservationConvention;
import org.springframework.http.client.observation.DefaultClientRequestObservationConvention;

/**
 * Records each attempt of a retried blocking call as an {@code http.client.requests} observation of its own,
 * started on the attempt's thread while the attempt's {@code retry.attempt} observation is in scope, so it is that
 * attempt's child (the client's observation of the whole call, which would be the retries' parent, is dropped by
 * {@link ClaimedCallsObservationPredicate}). The attempt's trace context is written into the request it sends.
 * Thread-safe.
 */
final class ObservedAttempts {

	/** RestClient's attribute of the URI template, which the convention's {@code uri} key reads. */
	private static final String URI_TEMPLATE = "org.springframework.web.client.RestClient.uriTemplate";

	private final ObservationRegistry registry;

	private final ClientRequestObservationConvention convention;

	ObservedAttempts(ObservationRegistry registry, @Nullable ClientRequestObservationConvention convention,
			String name) {
		this.registry = registry;
		this.convention = (convention != null) ? convention : new DefaultClientRequestObservationConvention(name);
	}

	/**
	 * Steps out of the scope of the client's observation of the whole call, which {@link ClaimedCallsObservationPredicate}
	 * turned into a no-op: the retried call's own observation is then the child of the observation around the client
	 * call (a server request's, say), not of the no-op.
	 * @return the scope to make current again once the call ended, or {@code null} when none was left
	 */
	Observation.@Nullable Scope leaveVetoedScope() {
		Observation.Scope current = this.registry.getCurrentObservationScope();
		if (current == null || !current.getCurrentObservation().isNoop()) {
			return null;
		}
		Observation.Scope around = current.getPreviousObservationScope();
		if (around != null) {
			around.makeCurrent();
		}
		else {
			current.reset();
		}
		return current;
	}

	/**
	 * Sends one attempt inside its observation.
	 * @param request the call's request, which carries the attempt's trace context
	 * @param attempt makes the request the attempt sends (after the trace context was written)
	 * @param body the body
	 * @param execution the rest of the chain
	 * @return the response
	 * @throws IOException the attempt's I/O failure
	 */
	ClientHttpResponse exchange(HttpRequest request, java.util.function.UnaryOperator<HttpRequest> attempt, byte[] body,
			ClientHttpRequestExecution execution) throws IOException {
		if (!(request instanceof ClientHttpRequest carrier) || this.registry.isNoop()) {
			return execution.execute(attempt.apply(request), body);
		}
		AttemptRequestObservationContext context = new AttemptRequestObservationContext(carrier);
		Object template = request.getAttributes().get(URI_TEMPLATE);
		context.setUriTemplate((template instanceof String text) ? text : null);
		Observation observation = ClientHttpObservationDocumentation.HTTP_CLIENT_EXCHANGES
			.observation(this.convention, this.convention, () -> context, this.registry)
			.start();
		try (Observation.Scope scope = observation.openScope()) {
			ClientHttpResponse response = execution.execute(attempt.apply(request), body);
			context.setResponse(response);
			return response;
		}
		catch (IOException | RuntimeException | Error ex) {
			observation.error(ex);
			throw ex;
		}
		finally {
			observation.stop();
		}
	}

}
