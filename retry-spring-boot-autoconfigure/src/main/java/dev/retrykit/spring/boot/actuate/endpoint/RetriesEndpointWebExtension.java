package dev.retrykit.spring.boot.actuate.endpoint;

import java.util.Objects;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;

/**
 * The HTTP face of {@link RetriesEndpoint}: decides whether values are shown from the request's
 * principal and roles ({@code management.endpoint.retries.show-values} and {@code .roles}), answers 404
 * with a message for an unknown instance, 400 with a message for an action that does not apply, and 503
 * with a message for a {@code clear-cache} that could not clear the cluster's shared contexts.
 * Thread-safe.
 */
@EndpointWebExtension(endpoint = RetriesEndpoint.class)
public class RetriesEndpointWebExtension {

	private final RetriesEndpoint delegate;

	private final Show showValues;

	private final Set<String> roles;

	/**
	 * @param delegate the endpoint
	 * @param showValues when cache keys, failback task keys and exception messages are shown unmasked
	 * @param roles the roles that may see them under {@link Show#WHEN_AUTHORIZED} (empty = any
	 * authenticated user)
	 */
	public RetriesEndpointWebExtension(RetriesEndpoint delegate, Show showValues, Set<String> roles) {
		this.delegate = Objects.requireNonNull(delegate, "delegate must not be null");
		this.showValues = Objects.requireNonNull(showValues, "showValues must not be null");
		this.roles = Set.copyOf(roles);
	}

	/**
	 * @param securityContext the caller
	 * @return every instance created so far
	 */
	@ReadOperation
	public RetriesDescriptor retries(SecurityContext securityContext) {
		return this.delegate.retries(this.showValues.isShown(securityContext, this.roles));
	}

	/**
	 * @param securityContext the caller
	 * @param name the instance name
	 * @return 200 with the instance in detail, or 404 with a message
	 */
	@ReadOperation
	public WebEndpointResponse<Object> retry(SecurityContext securityContext, @Selector String name) {
		RetryInstanceDescriptor instance = this.delegate.retry(name, this.showValues.isShown(securityContext, this.roles));
		return (instance != null) ? new WebEndpointResponse<>(instance) : notFound(name);
	}

	/**
	 * Runs an action; mapped only when the endpoint's access is unrestricted.
	 * @param name the instance name
	 * @param action {@value RetriesEndpoint#OPEN_CIRCUIT}, {@value RetriesEndpoint#CLOSE_CIRCUIT} or
	 * {@value RetriesEndpoint#CLEAR_CACHE}; {@code null} when the body has none (empty, or {@code {}})
	 * @return 200 with the instance after the action, 404 for an unknown instance, 400 with the expected form for
	 * an action that is missing, unknown or does not apply to the instance, 503 with a message when
	 * {@value RetriesEndpoint#CLEAR_CACHE} cleared this replica's contexts but could not clear the shared ones
	 */
	@WriteOperation
	public WebEndpointResponse<Object> perform(@Selector String name, @Nullable String action) {
		if (!this.delegate.hasInstance(name)) {
			return notFound(name);
		}
		try {
			return new WebEndpointResponse<>(this.delegate.perform(name, action));
		}
		catch (InvalidEndpointRequestException ex) {
			String reason = (ex.getReason() != null) ? ex.getReason() : String.valueOf(ex.getMessage());
			return new WebEndpointResponse<>(new ErrorDescriptor(reason), WebEndpointResponse.STATUS_BAD_REQUEST);
		}
		catch (ContextCacheNotClearedException ex) {
			return new WebEndpointResponse<>(new ErrorDescriptor(String.valueOf(ex.getMessage())),
					WebEndpointResponse.STATUS_SERVICE_UNAVAILABLE);
		}
	}

	private WebEndpointResponse<Object> notFound(String name) {
		return new WebEndpointResponse<>(new ErrorDescriptor(this.delegate.unknownInstance(name)),
				WebEndpointResponse.STATUS_NOT_FOUND);
	}

	/**
	 * The body of a 400, 404 or 503 answer.
	 *
	 * @param message what was wrong and what is allowed
	 */
	public record ErrorDescriptor(String message) {
	}

}
