package dev.retrykit.spring.boot.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.function.BiConsumer;

import dev.retrykit.RetryRegistry;
import dev.retrykit.spi.TimeSource;
import dev.retrykit.spring.boot.http.HopHeaders;
import dev.retrykit.spring.boot.http.RetryAfterDelayHintExtractor;
import dev.retrykit.spring.boot.http.client.ClaimedCallsObservationPredicate;
import dev.retrykit.spring.boot.http.client.ClaimedHostsHttpRequestRetryStrategy;
import dev.retrykit.spring.boot.http.client.ClaimedWebClientCallsObservationPredicate;
import dev.retrykit.spring.boot.http.client.DeadlineExecHandler;
import dev.retrykit.spring.boot.http.client.DeadlineHttpContextFactory;
import dev.retrykit.spring.boot.http.client.HttpRetryRoute;
import dev.retrykit.spring.boot.http.client.HttpRetryRoutes;
import dev.retrykit.spring.boot.http.client.RetryingClientHttpRequestInterceptor;
import dev.retrykit.spring.boot.http.client.RetryingExchangeFilterFunction;

import io.micrometer.observation.ObservationRegistry;
import org.apache.hc.client5.http.impl.ChainElement;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.http.client.HttpClientSettings;
import org.springframework.boot.http.client.HttpComponentsClientHttpRequestFactoryBuilder;
import org.springframework.boot.http.client.autoconfigure.ClientHttpRequestFactoryBuilderCustomizer;
import org.springframework.boot.restclient.RestClientCustomizer;
import org.springframework.boot.restclient.RestTemplateCustomizer;
import org.springframework.boot.webclient.WebClientCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.http.client.observation.ClientRequestObservationConvention;
import org.springframework.web.client.support.RestClientHttpServiceGroupConfigurer;
import org.springframework.web.reactive.function.client.support.WebClientHttpServiceGroupConfigurer;
import org.springframework.web.service.registry.HttpServiceGroupConfigurer;

/**
 * Retries HTTP client calls by configuration: every client built from Boot's {@code RestClient.Builder},
 * {@code RestTemplateBuilder} and {@code WebClient.Builder} (so {@code @HttpExchange} interfaces and HTTP service
 * groups built on them too) gets the interceptor or filter that runs the calls an instance claims
 * ({@code retry.instances.<name>.http.hosts} or {@code .service-groups}) through that instance. Nothing is added
 * when no instance claims anything. Each part is there only when its client's module is on the classpath.
 */
@AutoConfiguration(after = RetryAutoConfiguration.class,
		beforeName = { "org.springframework.boot.http.client.autoconfigure.imperative.ImperativeHttpClientAutoConfiguration",
				"org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration",
				"org.springframework.boot.restclient.autoconfigure.RestTemplateAutoConfiguration",
				"org.springframework.boot.webclient.autoconfigure.WebClientAutoConfiguration" })
@Conditional(OnRetryEnabledCondition.class)
@ConditionalOnClass(name = "org.springframework.http.client.ClientHttpRequestInterceptor")
public final class RetryHttpClientAutoConfiguration {

	/** Boot's property of the name of the HTTP client observations. */
	private static final String CLIENT_REQUESTS_NAME = "management.observations.http.client.requests.name";

	/** The order of the HTTP service group configurers: after Boot's, which applies the client customizer beans (order 0). */
	private static final int GROUP_CONFIGURER_ORDER = 10;

	/** {@return the name of the client's observations with Spring's default convention, as Boot sets it} */
	private static String clientRequestsName(Environment environment) {
		return environment.getProperty(CLIENT_REQUESTS_NAME, "http.client.requests");
	}

	/**
	 * Hands each client of an HTTP service group an instance claims ({@code http.service-groups}), with that
	 * instance's route, to {@code claim}: RestClient's and WebClient's group configurers alike.
	 */
	private static <B> void forEachClaimedGroup(HttpServiceGroupConfigurer.Groups<B> groups, HttpRetryRoutes routes,
			BiConsumer<B, HttpRetryRoute> claim) {
		groups.forEachClient((group, builder) -> {
			HttpRetryRoute route = routes.forGroup(group.name());
			if (route != null) {
				claim.accept(builder, route);
			}
		});
	}

	/**
	 * Puts a group's interceptor or filter first in its client's chain, so that the others run once per attempt,
	 * and drops the by-host one Boot's customizers added: the group's instance runs every call of the group.
	 * @param chain the client's interceptors or filters
	 * @param byHost the type of the by-host interceptor or filter
	 * @param bound the one bound to the group's route
	 */
	private static <T> void putFirst(List<T> chain, Class<? extends T> byHost, T bound) {
		chain.removeIf(byHost::isInstance);
		chain.add(0, bound);
	}

	/** The routes of the instances that claim hosts or service groups. */
	@Bean
	@ConditionalOnMissingBean
	HttpRetryRoutes retryHttpRoutes(RetryProperties properties, RetryRegistry registry,
			ObjectProvider<RetryAfterDelayHintExtractor> retryAfter, TimeSource timeSource,
			ObjectProvider<RetryReconfigurer> reconfigurer) {
		RetryProperties.Http http = properties.getHttp();
		HttpHeaderNames.check(http);
		HopHeaders hops = http.getPropagation().isEnabled() ? HttpHeaderNames.hopHeaders(http, timeSource) : null;
		HttpRetryRoutes routes = HttpRoutesFactory.routes(HttpClaims.of(properties), registry,
				retryAfter.getIfAvailable(), http.getAttemptHeader(), hops);
		// The attempt header and each instance's Retry-After choice follow live changes of retry.*.
		reconfigurer.ifAvailable(live -> live.follow(changed -> HttpRoutesFactory.follow(routes, changed)));
		return routes;
	}

	/** RestClient and RestTemplate, built from Boot's builders, and the RestClient HTTP service groups. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "org.springframework.boot.restclient.RestClientCustomizer")
	static class RestClientsConfiguration {

		@Bean
		@ConditionalOnMissingBean
		RetryingClientHttpRequestInterceptor retryingClientHttpRequestInterceptor(HttpRetryRoutes routes,
				ObjectProvider<ObservationRegistry> registry,
				ObjectProvider<ClientRequestObservationConvention> convention, Environment environment) {
			RetryingClientHttpRequestInterceptor interceptor = RetryingClientHttpRequestInterceptor.of(routes);
			ObservationRegistry observations = registry.getIfUnique();
			return (observations != null)
					? interceptor.observedBy(observations, convention.getIfUnique(), clientRequestsName(environment))
					: interceptor;
		}

		/** Drops the client's observation of a whole claimed call: each attempt is observed, under its retry.attempt. */
		@Bean
		@ConditionalOnMissingBean
		static ClaimedCallsObservationPredicate claimedCallsObservationPredicate(ObjectProvider<HttpRetryRoutes> routes) {
			return new ClaimedCallsObservationPredicate(routes::getObject);
		}

		@Bean
		RestClientCustomizer retryRestClientCustomizer(HttpRetryRoutes routes,
				RetryingClientHttpRequestInterceptor interceptor) {
			return builder -> {
				if (HttpRoutesFactory.claimsHostsForBlocking(routes)) {
					builder.requestInterceptors(interceptors -> interceptors.add(0, interceptor));
				}
			};
		}

		@Bean
		RestTemplateCustomizer retryRestTemplateCustomizer(HttpRetryRoutes routes,
				RetryingClientHttpRequestInterceptor interceptor) {
			return restTemplate -> {
				if (HttpRoutesFactory.claimsHostsForBlocking(routes)) {
					restTemplate.getInterceptors().add(0, interceptor);
				}
			};
		}

		@Bean
		@ConditionalOnClass(name = "org.springframework.web.client.support.RestClientHttpServiceGroupConfigurer")
		RestClientHttpServiceGroupConfigurer retryRestClientHttpServiceGroupConfigurer(HttpRetryRoutes routes,
				RetryingClientHttpRequestInterceptor interceptor) {
			return new RestClientHttpServiceGroupConfigurer() {

				@Override
				public void configureGroups(Groups<org.springframework.web.client.RestClient.Builder> groups) {
					forEachClaimedGroup(groups, routes, (builder, route) -> {
						HttpRoutesFactory.checkBlockingHedging(List.of(route), "http.service-groups");
						builder.requestInterceptors(interceptors -> putFirst(interceptors,
								RetryingClientHttpRequestInterceptor.class, interceptor.forRoute(route)));
						// Marks the group's calls, whose own observation is then dropped: each attempt is observed.
						builder.defaultRequest(
								request -> request.attribute(HttpRetryRoute.GROUP_CLAIM_ATTRIBUTE, route.instance()));
					});
				}

				@Override
				public int getOrder() {
					return GROUP_CONFIGURER_ORDER;
				}

			};
		}

	}

	/**
	 * Apache HttpClient 5 retries by itself (an idempotent request's I/O failure, a 429 or 503, once): not for
	 * the hosts an instance claims, whose attempts the instance counts and spaces. Its requests under a deadline
	 * wait no longer than the time left.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = { "org.apache.hc.client5.http.impl.classic.HttpClientBuilder",
			"org.springframework.boot.http.client.autoconfigure.ClientHttpRequestFactoryBuilderCustomizer" })
	static class ApacheHttpClientConfiguration {

		@Bean
		ClientHttpRequestFactoryBuilderCustomizer<HttpComponentsClientHttpRequestFactoryBuilder> retryHttpComponentsRetryStrategy(
				HttpRetryRoutes routes) {
			return builder -> routes.isEmpty() ? builder : builder
				.withHttpClientCustomizer(client -> client.setRetryStrategy(ClaimedHostsHttpRequestRetryStrategy.of(routes)));
		}

		/**
		 * Each request sent under a deadline waits for its answer no longer than the time left (and no longer than
		 * the configured read timeout): the blocking attempt in flight is bounded too, not only the next one.
		 */
		@Bean
		@ConditionalOnBooleanProperty(name = "retry.http.propagation.enabled", matchIfMissing = true)
		ClientHttpRequestFactoryBuilderCustomizer<HttpComponentsClientHttpRequestFactoryBuilder> retryHttpComponentsDeadline(
				HttpRetryRoutes routes, ObjectProvider<HttpClientSettings> settings, RetryProperties properties) {
			HttpClientSettings configured = settings.getIfAvailable();
			Duration readTimeout = (configured != null) ? configured.readTimeout() : null;
			String deadlineHeader = properties.getHttp().getDeadlineHeader();
			return builder -> routes.isEmpty() ? builder : builder.withCustomizer(factory -> factory
				.setHttpContextFactory(new DeadlineHttpContextFactory(factory::getHttpClient, readTimeout)))
				// Once the connection is leased: the wait for a pooled connection is counted against the deadline.
				.withHttpClientCustomizer(client -> client.addExecInterceptorAfter(ChainElement.CONNECT.name(),
						DeadlineExecHandler.NAME, new DeadlineExecHandler(deadlineHeader)));
		}

	}

	/** WebClient, built from Boot's builder, and the WebClient HTTP service groups. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = { "org.springframework.boot.webclient.WebClientCustomizer",
			"dev.retrykit.reactor.RetryOperator" })
	static class WebClientsConfiguration {

		@Bean
		@ConditionalOnMissingBean
		RetryingExchangeFilterFunction retryingExchangeFilterFunction(HttpRetryRoutes routes,
				ObjectProvider<ObservationRegistry> registry,
				ObjectProvider<org.springframework.web.reactive.function.client.ClientRequestObservationConvention> convention,
				Environment environment) {
			RetryingExchangeFilterFunction filter = RetryingExchangeFilterFunction.of(routes);
			ObservationRegistry observations = registry.getIfUnique();
			return (observations != null)
					? filter.observedBy(observations, convention.getIfUnique(), clientRequestsName(environment)) : filter;
		}

		/** Drops the client's observation of a whole claimed call: each attempt is observed, under its retry.attempt. */
		@Bean
		@ConditionalOnMissingBean
		static ClaimedWebClientCallsObservationPredicate claimedWebClientCallsObservationPredicate(
				ObjectProvider<HttpRetryRoutes> routes) {
			return new ClaimedWebClientCallsObservationPredicate(routes::getObject);
		}

		@Bean
		WebClientCustomizer retryWebClientCustomizer(HttpRetryRoutes routes, RetryingExchangeFilterFunction filter) {
			return builder -> {
				if (!routes.hostRoutes().isEmpty()) {
					builder.filters(filters -> filters.add(0, filter));
				}
			};
		}

		@Bean
		@ConditionalOnClass(
				name = "org.springframework.web.reactive.function.client.support.WebClientHttpServiceGroupConfigurer")
		WebClientHttpServiceGroupConfigurer retryWebClientHttpServiceGroupConfigurer(HttpRetryRoutes routes,
				RetryingExchangeFilterFunction filter) {
			return new WebClientHttpServiceGroupConfigurer() {

				@Override
				public void configureGroups(
						Groups<org.springframework.web.reactive.function.client.WebClient.Builder> groups) {
					forEachClaimedGroup(groups, routes, (builder, route) -> {
						// No executor check: a reactive call's hedged copies need no thread of their own.
						builder.filters(filters -> putFirst(filters, RetryingExchangeFilterFunction.class,
								filter.forRoute(route)));
						builder.defaultRequest(
								request -> request.attribute(HttpRetryRoute.GROUP_CLAIM_ATTRIBUTE, route.instance()));
					});
				}

				@Override
				public int getOrder() {
					return GROUP_CONFIGURER_ORDER;
				}

			};
		}

	}

}
