package dev.retrykit.spring.boot.actuate.endpoint;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;

import org.springframework.core.Ordered;
import org.springframework.http.MediaType;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.servlet.HandlerExceptionResolver;
import org.springframework.web.servlet.ModelAndView;

/**
 * Answers a write to the {@code retries} endpoint whose body is not JSON (Spring MVC rejects it before the
 * endpoint is called) with a 400 whose message gives the expected form, instead of a bare 400. Every other
 * request and failure is left to the application's resolvers. Thread-safe.
 */
public final class RetriesEndpointUnreadableBodyResolver implements HandlerExceptionResolver, Ordered {

	private final Supplier<@Nullable String> endpointPath;

	/**
	 * @param endpointPath the endpoint's path below the context path (e.g. {@code /actuator/retries}), asked
	 * when a request fails, or {@code null} when the endpoint is not mapped
	 */
	public RetriesEndpointUnreadableBodyResolver(Supplier<@Nullable String> endpointPath) {
		this.endpointPath = endpointPath;
	}

	@Override
	public @Nullable ModelAndView resolveException(HttpServletRequest request, HttpServletResponse response,
			@Nullable Object handler, Exception failure) {
		if (!(failure instanceof HttpMessageNotReadableException) || !"POST".equals(request.getMethod())
				|| !isEndpoint(request)) {
			return null;
		}
		String message = "The request body is not readable JSON; expected " + RetriesEndpoint.EXPECTED_BODY;
		try {
			response.setStatus(HttpServletResponse.SC_BAD_REQUEST);
			response.setContentType(MediaType.APPLICATION_JSON_VALUE);
			response.getOutputStream()
				.write(("{\"message\":\"" + message.replace("\\", "\\\\").replace("\"", "\\\"") + "\"}")
					.getBytes(StandardCharsets.UTF_8));
		}
		catch (IOException ex) {
			return null;
		}
		return new ModelAndView();
	}

	private boolean isEndpoint(HttpServletRequest request) {
		String path = this.endpointPath.get();
		String requested = request.getRequestURI().substring(request.getContextPath().length());
		return path != null && requested.startsWith(path + "/");
	}

	/** Before Spring MVC's own resolvers, which would answer a bare 400. */
	@Override
	public int getOrder() {
		return Ordered.HIGHEST_PRECEDENCE + 10;
	}

}
