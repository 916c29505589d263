package dev.retrykit.spring.boot.http.server;

import java.io.IOException;
import java.util.Objects;

import dev.retrykit.Deadline;
import dev.retrykit.spring.boot.http.HopHeaders;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;

/**
 * Retry at one layer, for servlet requests: runs each request under the deadline its caller sent
 * ({@code X-Request-Timeout: <ms>}, see {@link HopHeaders#deadline}), with a fresh {@link ExhaustionMarker}
 * current on the request's thread, and marks its response with {@code X-Retry-Exhausted: <instance>} when the
 * response is an error (status 400 or above) and a retrykit call made during the request gave up (see
 * {@link ExhaustionRecordingListener}). A success is never marked: its caller does not retry it anyway.
 *
 * <p>The mark is set while the response can still take a header: when the status is set, an error sent, the body
 * opened or the buffer flushed, and when the chain returns or throws. Register it for the {@code REQUEST},
 * {@code ASYNC} and {@code ERROR} dispatches (the auto-configuration does, early in the chain): the request keeps
 * its deadline and marker (request attribute {@link #ATTRIBUTE}) through the async dispatch of a
 * {@code CompletionStage} handler and the error dispatch to {@code /error}, so that a response written there is
 * marked too. Thread-safe.
 */
public final class RetryHopsServletFilter implements Filter {

	/** The request attribute that keeps the request's deadline and marker across its dispatches. */
	public static final String ATTRIBUTE = RetryHopsServletFilter.class.getName() + ".hop";

	/** Early among the filters (right after the observation filter), so that the whole chain runs under the deadline. */
	public static final int ORDER = Integer.MIN_VALUE + 2;

	private final HopHeaders headers;

	/**
	 * @param headers the names of the headers, and the clock of the deadlines
	 */
	public RetryHopsServletFilter(HopHeaders headers) {
		this.headers = Objects.requireNonNull(headers, "headers must not be null");
	}

	@Override
	public void doFilter(ServletRequest servletRequest, ServletResponse servletResponse, FilterChain chain)
			throws IOException, ServletException {
		if (!(servletRequest instanceof HttpServletRequest request)
				|| !(servletResponse instanceof HttpServletResponse response)) {
			chain.doFilter(servletRequest, servletResponse);
			return;
		}
		Hop hop = hop(request);
		MarkingResponse marking = new MarkingResponse(response, hop.marker(), this.headers.exhaustedHeader());
		Deadline deadline = hop.deadline();
		Deadline.Scope deadlineScope = (deadline != null) ? deadline.enter() : null;
		try (ExhaustionMarker.Scope markerScope = hop.marker().enter()) {
			chain.doFilter(request, marking);
		}
		catch (IOException | ServletException | RuntimeException | Error ex) {
			// The container turns it into an error response (and an error dispatch, marked again there).
			marking.mark();
			throw ex;
		}
		finally {
			if (deadlineScope != null) {
				deadlineScope.close();
			}
		}
		marking.markIfError();
	}

	private Hop hop(HttpServletRequest request) {
		if (request.getAttribute(ATTRIBUTE) instanceof Hop kept) {
			return kept;
		}
		Deadline deadline = (request.getDispatcherType() == DispatcherType.REQUEST)
				? this.headers.deadline(request.getHeader(this.headers.deadlineHeader())) : null;
		Hop hop = new Hop(new ExhaustionMarker(), deadline);
		request.setAttribute(ATTRIBUTE, hop);
		return hop;
	}

	@Override
	public String toString() {
		return "RetryHopsServletFilter[" + this.headers + "]";
	}

	/** A request's marker and deadline, kept for its later dispatches. */
	private record Hop(ExhaustionMarker marker, @Nullable Deadline deadline) {
	}

}
