package dev.retrykit.spring.boot.autoconfigure;

import java.util.List;
import java.util.function.BiConsumer;

import dev.retrykit.spring.boot.http.client.HttpRetryRoute;
import dev.retrykit.spring.boot.http.client.HttpRetryRoutes;

import org.springframework.web.service.registry.HttpServiceGroupConfigurer;

/**
 * What the HTTP service group configurers of RestClient and WebClient do alike for the groups an instance claims
 * ({@code http.service-groups}): find each claimed group's client, and put the interceptor or filter bound to the
 * group's route first in its chain, in place of the by-host one Boot's customizers added. Used at startup.
 */
final class ServiceGroupClaims {

	/** The order of the configurers: after Boot's, which applies the client customizer beans (order 0). */
	static final int ORDER = 10;

	private ServiceGroupClaims() {
	}

	/**
	 * Hands each client whose group an instance claims, with that instance's route, to {@code claim}.
	 * @param <B> the client builder (RestClient's or WebClient's)
	 * @param groups the groups of the configurer
	 * @param routes the routes of the instances
	 * @param claim binds a claimed group's client to its route
	 */
	static <B> void forEachClaimed(HttpServiceGroupConfigurer.Groups<B> groups, HttpRetryRoutes routes,
			BiConsumer<B, HttpRetryRoute> claim) {
		groups.forEachClient((group, builder) -> {
			HttpRetryRoute route = routes.forGroup(group.name());
			if (route != null) {
				claim.accept(builder, route);
			}
		});
	}

	/**
	 * Puts the group's interceptor or filter first in a client's chain, so that the others run once per attempt,
	 * and drops the by-host one: the group's instance runs every call of the group.
	 * @param <T> the chain's element (interceptor or filter)
	 * @param chain the client's interceptors or filters
	 * @param byHost the type of the by-host interceptor or filter
	 * @param bound the one bound to the group's route
	 */
	static <T> void putFirst(List<T> chain, Class<? extends T> byHost, T bound) {
		chain.removeIf(byHost::isInstance);
		chain.add(0, bound);
	}

}
