package dev.retrykit.spring.boot.autoconfigure;

import dev.retrykit.spi.TimeSource;
import dev.retrykit.spring.boot.http.server.ExhaustionRecordingListener;
import dev.retrykit.spring.boot.http.server.RetryHopsServletFilter;
import dev.retrykit.spring.boot.http.server.RetryHopsWebFilter;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;

/**
 * Retry at one layer, on the server side of a web application (with the HTTP client support of
 * {@link RetryHttpClientAutoConfiguration}): a filter runs each request under the deadline its caller sent
 * ({@code retry.http.deadline-header}) and marks the error response of a request during which a retrykit call gave
 * up ({@code retry.http.exhausted-header}); a listener on every instance records those calls. A servlet filter
 * (for the request, async and error dispatches) in a servlet application, a {@code WebFilter} in a reactive one.
 * Off with {@code retry.enabled=false} or {@code retry.http.propagation.enabled=false}.
 */
@AutoConfiguration(after = RetryAutoConfiguration.class)
@Conditional(OnRetryEnabledCondition.class)
@ConditionalOnBooleanProperty(name = "retry.http.propagation.enabled", matchIfMissing = true)
@ConditionalOnWebApplication
public final class RetryHttpServerAutoConfiguration {

	/** Records every retrykit call that gives up into the marker of the request it runs for. */
	@Bean
	@ConditionalOnMissingBean
	ExhaustionRecordingListener retryExhaustionRecordingListener() {
		return new ExhaustionRecordingListener();
	}

	/** Servlet applications: the filter, for every dispatch of a request. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
	@ConditionalOnClass(name = { "jakarta.servlet.Filter", "org.springframework.boot.web.servlet.FilterRegistrationBean" })
	static class ServletConfiguration {

		@Bean
		@ConditionalOnMissingBean(name = "retryHopsServletFilter")
		FilterRegistrationBean<RetryHopsServletFilter> retryHopsServletFilter(RetryProperties properties,
				TimeSource timeSource) {
			FilterRegistrationBean<RetryHopsServletFilter> registration = new FilterRegistrationBean<>(
					new RetryHopsServletFilter(HttpHeaderNames.hopHeaders(properties.getHttp(), timeSource)));
			registration.setDispatcherTypes(jakarta.servlet.DispatcherType.REQUEST, jakarta.servlet.DispatcherType.ASYNC,
					jakarta.servlet.DispatcherType.ERROR);
			registration.setOrder(RetryHopsServletFilter.ORDER);
			return registration;
		}

	}

	/** Reactive applications: the {@code WebFilter}. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
	@ConditionalOnClass(name = { "org.springframework.web.server.WebFilter", "reactor.core.publisher.Mono" })
	static class ReactiveConfiguration {

		@Bean
		@ConditionalOnMissingBean
		RetryHopsWebFilter retryHopsWebFilter(RetryProperties properties, TimeSource timeSource) {
			return new RetryHopsWebFilter(HttpHeaderNames.hopHeaders(properties.getHttp(), timeSource));
		}

	}

}
