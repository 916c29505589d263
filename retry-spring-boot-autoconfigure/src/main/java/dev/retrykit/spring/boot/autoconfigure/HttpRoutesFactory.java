package dev.retrykit.spring.boot.autoconfigure;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.retrykit.RetryRegistry;
import dev.retrykit.hedging.HedgingConfig;
import dev.retrykit.spi.DelayHintExtractor;
import dev.retrykit.spring.boot.http.HopHeaders;
import dev.retrykit.spring.boot.http.client.HttpRetryRoute;
import dev.retrykit.spring.boot.http.client.HttpRetryRoutes;
import org.jspecify.annotations.Nullable;

/** Builds the routes of the HTTP claims, and checks what a blocking client needs of them. Used at startup. */
final class HttpRoutesFactory {

	private HttpRoutesFactory() {
	}

	/**
	 * @param claims the checked claims
	 * @param registry the registry whose instances run the calls
	 * @param retryAfter the {@code Retry-After} reader, or {@code null} without spring-web
	 * @param attemptHeader the attempt header's name ({@code retry.http.attempt-header})
	 * @param hops the headers of deadlines and exhaustion, or {@code null} when propagation is off
	 * @return the routes
	 */
	static HttpRetryRoutes routes(List<HttpClaims.Claim> claims, RetryRegistry registry,
			@Nullable DelayHintExtractor retryAfter, String attemptHeader, @Nullable HopHeaders hops) {
		HttpRetryRoutes.Builder routes = HttpRetryRoutes.builder();
		for (HttpClaims.Claim claim : claims) {
			HttpRetryRoute route = HttpRetryRoute.of(registry.template(claim.instance()), retryAfter, claim.methods(),
					attemptHeader, hops);
			route.follow(attemptHeader, claim.honorRetryAfter());
			claim.hosts().forEach(host -> routes.host(host, route));
			claim.groups().forEach(group -> routes.group(group, route));
		}
		return routes.build();
	}

	/**
	 * Applies a live change to the routes: {@code retry.http.attempt-header}, and each claiming instance's
	 * {@code honor-retry-after}. What the instances claim ({@code http.hosts}, {@code http.service-groups},
	 * {@code http.methods}) is fixed at startup: the clients were built with it.
	 * @param routes the routes built at startup
	 * @param properties the bound, validated properties after the change
	 */
	static void follow(HttpRetryRoutes routes, RetryProperties properties) {
		String attemptHeader = properties.getHttp().getAttemptHeader();
		Map<String, Boolean> honor = new HashMap<>();
		for (HttpClaims.Claim claim : HttpClaims.of(properties)) {
			honor.put(claim.instance(), claim.honorRetryAfter());
		}
		for (HttpRetryRoute route : routes.routes()) {
			Boolean honored = honor.get(route.instance());
			// An instance that no longer claims anything keeps its routes (until a restart) and its Retry-After choice.
			route.follow(attemptHeader, (honored != null) ? honored : route.honorsRetryAfter());
		}
	}

	/**
	 * Whether a blocking client (RestClient, RestTemplate) gets the by-host interceptor: when an instance claims
	 * hosts, each of which may hedge only on an executor.
	 * @param routes the routes
	 * @return whether an instance claims hosts
	 * @throws InvalidRetryPropertyException if one of them hedges without {@code hedging.executor}
	 */
	static boolean claimsHostsForBlocking(HttpRetryRoutes routes) {
		List<HttpRetryRoute> hostRoutes = routes.hostRoutes();
		checkBlockingHedging(hostRoutes, "http.hosts");
		return !hostRoutes.isEmpty();
	}

	/**
	 * A blocking client hedges only on an executor, as a blocking {@code @Retryable} method does.
	 * @param routes the routes a blocking client may call through
	 * @param claimedBy the kind of claim, for the message
	 * @throws InvalidRetryPropertyException if one of them hedges without {@code hedging.executor}
	 */
	static void checkBlockingHedging(List<HttpRetryRoute> routes, String claimedBy) {
		for (HttpRetryRoute route : routes) {
			HedgingConfig hedging = route.template().getConfig().getHedging();
			if (hedging != null && hedging.isEnabled() && hedging.getExecutor() == null) {
				String path = "retry.instances." + route.instance() + ".hedging.executor";
				throw new InvalidRetryPropertyException(path, "",
						"retry '" + route.instance() + "' hedges the calls its " + claimedBy + " claims, and a "
								+ "RestClient or RestTemplate blocks its caller, so its copies need an executor to run on",
						"Set '" + path + "' to the name of an Executor bean, or call these hosts through a WebClient, "
								+ "or set 'retry.instances." + route.instance() + ".hedging.enabled' to false.", null);
			}
		}
	}

}
