package dev.retrykit.spring.boot.http.client;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

import dev.retrykit.RetryConfig;
import dev.retrykit.RetryConfigBuilder;
import dev.retrykit.RetryTemplate;
import dev.retrykit.policy.StatusCodes;
import dev.retrykit.spi.DelayHintExtractor;
import dev.retrykit.spi.StatusExtractor;
import dev.retrykit.spring.boot.http.HopHeaders;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;

/**
 * How the calls one instance claims are retried: the instance's template as HTTP clients use it, the methods
 * retried besides the idempotent ones, and the header that numbers the attempts.
 *
 * <p>Idempotency (RFC 9110 §9.2.2): GET, HEAD, OPTIONS, TRACE, PUT and DELETE are retried; any other method
 * only when the request carries an {@code Idempotency-Key} header or {@code http.methods} lists it. Responses
 * whose status the instance's {@code match.http-status} lists (by default for HTTP clients
 * {@value #DEFAULT_HTTP_STATUS}) fail the attempt. Immutable and thread-safe.
 */
public final class HttpRetryRoute {

	/** The statuses retried when the instance sets no {@code match.http-status}. */
	public static final String DEFAULT_HTTP_STATUS = "429,502,503,504";

	/**
	 * The request attribute that every request of an HTTP service group's client carries when an instance claims the
	 * group ({@code http.service-groups}), with the instance's name: the client's own observation of such a call is
	 * dropped, as for a call claimed by host, since each attempt is observed on its own.
	 */
	public static final String GROUP_CLAIM_ATTRIBUTE = HttpRetryRoute.class.getName() + ".GROUP_CLAIM";

	/** The header of the IETF httpapi draft that makes a POST or PATCH safe to repeat. */
	public static final String IDEMPOTENCY_KEY = "Idempotency-Key";

	private static final StatusCodes DEFAULT_STATUSES = StatusCodes.parse(DEFAULT_HTTP_STATUS, StatusExtractor.Kind.HTTP);

	private final RetryTemplate template;

	private final EnumSet<Method> extraMethods;

	private volatile String attemptHeader;

	private final @Nullable HopHeaders hops;

	private final @Nullable LiveRetryAfter retryAfter;

	private HttpRetryRoute(RetryTemplate template, EnumSet<Method> extraMethods, String attemptHeader,
			@Nullable HopHeaders hops, @Nullable LiveRetryAfter retryAfter) {
		this.template = template;
		this.extraMethods = extraMethods;
		this.attemptHeader = attemptHeader;
		this.hops = hops;
		this.retryAfter = retryAfter;
	}

	/**
	 * A route for calls of {@code instance}. Makes a variant of it once (keep the route, do not make one per call):
	 * the instance's configuration with {@value #DEFAULT_HTTP_STATUS} as its {@code match.http-status} when it sets
	 * none, and {@code retryAfter} as its delay hint when it has none; the variant follows the instance's live changes
	 * and counts as the instance.
	 * @param instance the instance's template
	 * @param retryAfter the {@code Retry-After} reader to use when the instance has no delay hint, or {@code null}
	 * to leave the instance's as it is ({@code honor-retry-after: false})
	 * @param extraMethods methods retried besides the idempotent ones (names as {@link HttpMethod#name()})
	 * @param attemptHeader the header every attempt after the first carries, with the attempt's number
	 * @return the route
	 * @throws IllegalArgumentException if a method name is not one of HTTP's eight
	 */
	public static HttpRetryRoute of(RetryTemplate instance, @Nullable DelayHintExtractor retryAfter,
			Set<String> extraMethods, String attemptHeader) {
		return of(instance, retryAfter, extraMethods, attemptHeader, HopHeaders.defaults());
	}

	/**
	 * A route for calls of {@code instance}, as {@link #of(RetryTemplate, DelayHintExtractor, Set, String)} makes
	 * one, with the headers that travel across hops: when {@code hops} is given, each attempt under a
	 * {@link dev.retrykit.Deadline} sends the time left in the deadline header and is not started once it has
	 * passed, and a response with an error status that carries the exhaustion header is never retried (the attempt
	 * fails with a {@link dev.retrykit.DownstreamExhaustedException}; the client gets the response).
	 * @param instance the instance's template
	 * @param retryAfter the {@code Retry-After} reader to use when the instance has no delay hint, or {@code null}
	 * @param extraMethods methods retried besides the idempotent ones (names as {@link HttpMethod#name()})
	 * @param attemptHeader the header every attempt after the first carries, with the attempt's number
	 * @param hops the headers of deadlines and exhaustion, or {@code null} when propagation is off
	 * @return the route
	 * @throws IllegalArgumentException if a method name is not one of HTTP's eight
	 */
	public static HttpRetryRoute of(RetryTemplate instance, @Nullable DelayHintExtractor retryAfter,
			Set<String> extraMethods, String attemptHeader, @Nullable HopHeaders hops) {
		Objects.requireNonNull(instance, "instance must not be null");
		EnumSet<Method> methods = EnumSet.noneOf(Method.class);
		for (String name : extraMethods) {
			methods.add(Method.valueOf(name));
		}
		LiveRetryAfter live = (retryAfter != null) ? new LiveRetryAfter(retryAfter) : null;
		RetryTemplate variant = instance.variant(config -> forHttp(config, live));
		return new HttpRetryRoute(variant, methods, Objects.requireNonNull(attemptHeader, "attemptHeader must not be null"),
				hops, live);
	}

	/**
	 * Applies a live change of {@code retry.http.attempt-header} and of the instance's {@code honor-retry-after} (the
	 * auto-configuration calls it after each applied reconfiguration of {@code retry.*}); the calls that start
	 * afterwards use them. The instance's other settings follow its live changes by themselves.
	 * @param attemptHeader the header every attempt after the first carries
	 * @param honorRetryAfter whether {@code Retry-After} sets the delay when the instance has no delay hint of its
	 * own; no effect on a route made without a {@code Retry-After} reader
	 */
	public void follow(String attemptHeader, boolean honorRetryAfter) {
		this.attemptHeader = Objects.requireNonNull(attemptHeader, "attemptHeader must not be null");
		LiveRetryAfter live = this.retryAfter;
		if (live != null) {
			live.honored = honorRetryAfter;
		}
	}

	private static RetryConfig forHttp(RetryConfig config, @Nullable LiveRetryAfter retryAfter) {
		boolean ignores = config.getIgnore().contains(BodyNotReplayedException.class);
		if (ignores && config.getHttpStatus() != null && (config.getDelayHint() != null || retryAfter == null)) {
			return config;
		}
		RetryConfigBuilder builder = RetryConfig.builder(config);
		if (config.getHttpStatus() == null) {
			builder.httpStatus(DEFAULT_STATUSES);
		}
		if (config.getDelayHint() == null && retryAfter != null) {
			builder.delayHint(retryAfter);
		}
		if (!ignores) {
			// A WebClient attempt whose body cannot be sent again ends the call (see ReplayableBody).
			List<Class<? extends Throwable>> ignore = new ArrayList<>(config.getIgnore());
			ignore.add(BodyNotReplayedException.class);
			builder.ignore(ignore);
		}
		return builder.build();
	}

	/** {@return the template the calls run on: a variant of the instance, counted as the instance} */
	public RetryTemplate template() {
		return this.template;
	}

	/** {@return the instance's name} */
	public String instance() {
		return this.template.getName();
	}

	/** {@return the header every attempt after the first carries} */
	public String attemptHeader() {
		return this.attemptHeader;
	}

	/** {@return whether {@code Retry-After} sets the delay when the instance has no delay hint of its own} */
	public boolean honorsRetryAfter() {
		LiveRetryAfter live = this.retryAfter;
		return live != null && live.honored;
	}

	/** {@return the headers of deadlines and exhaustion, or {@code null} when propagation is off} */
	public @Nullable HopHeaders hops() {
		return this.hops;
	}

	/**
	 * {@return the instance that says a response of a failed attempt comes from a downstream that already retried
	 * and gave up, or {@code null} when it does not: an error status (400 or above) with the exhaustion header,
	 * while propagation is on}
	 * @param status the response's status code
	 * @param headers the response's headers
	 */
	@Nullable String exhaustedDownstream(int status, HttpHeaders headers) {
		if (this.hops == null || status < 400) {
			return null;
		}
		return headers.getFirst(this.hops.exhaustedHeader());
	}

	/**
	 * {@return whether a request may be sent again after a failure: an idempotent method, an
	 * {@code Idempotency-Key} header, or a method listed in {@code http.methods}}
	 * @param method the request's method
	 * @param headers the request's headers
	 */
	public boolean retries(HttpMethod method, HttpHeaders headers) {
		// Identity checks first: HttpMethod.valueOf hands out one constant per standard method.
		if (method == HttpMethod.GET || method == HttpMethod.PUT || method == HttpMethod.DELETE
				|| method == HttpMethod.HEAD || method == HttpMethod.OPTIONS || method == HttpMethod.TRACE) {
			return true;
		}
		Method known = Method.of(method);
		return (known != null && this.extraMethods.contains(known)) || headers.containsHeader(IDEMPOTENCY_KEY);
	}

	/**
	 * {@return whether a response with this status fails its attempt: read from the instance's current configuration}
	 * @param status the response's status code
	 */
	public boolean failsAttempt(int status) {
		StatusCodes codes = this.template.getConfig().getHttpStatus();
		return (codes != null) ? codes.contains(status) : DEFAULT_STATUSES.contains(status);
	}

	/**
	 * {@return why a failed request of this method is not retried}
	 * @param method the request's method
	 */
	String notRetriedReason(HttpMethod method) {
		return method.name() + " is not idempotent (RFC 9110 9.2.2), so retry '" + instance() + "' sent it once: it "
				+ "retries a " + method.name() + " only with an " + IDEMPOTENCY_KEY + " header, or when its http.methods "
				+ "lists " + method.name();
	}

	@Override
	public String toString() {
		return "HttpRetryRoute[" + instance() + ", extra methods " + this.extraMethods + "]";
	}

	/**
	 * The {@code Retry-After} reader of a route whose instance has no delay hint of its own, switched on and off by
	 * the instance's {@code honor-retry-after} as it changes live (read per failure, a volatile read).
	 */
	private static final class LiveRetryAfter implements DelayHintExtractor {

		private final DelayHintExtractor reader;

		volatile boolean honored = true;

		LiveRetryAfter(DelayHintExtractor reader) {
			this.reader = reader;
		}

		@Override
		public @Nullable Duration delayHint(Throwable failure) {
			return this.honored ? this.reader.delayHint(failure) : null;
		}

	}

	/** HTTP's eight methods. */
	enum Method {

		GET, HEAD, OPTIONS, TRACE, PUT, DELETE, POST, PATCH;

		static @Nullable Method of(HttpMethod method) {
			try {
				return valueOf(method.name());
			}
			catch (IllegalArgumentException ex) {
				return null;
			}
		}

	}

}
