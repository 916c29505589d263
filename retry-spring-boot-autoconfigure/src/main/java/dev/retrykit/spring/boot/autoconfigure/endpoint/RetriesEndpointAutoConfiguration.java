package dev.retrykit.spring.boot.autoconfigure.endpoint;

import dev.retrykit.spring.boot.actuate.endpoint.RetriesEndpoint;
import dev.retrykit.spring.boot.actuate.endpoint.RetriesEndpointUnreadableBodyResolver;
import dev.retrykit.spring.boot.actuate.endpoint.RetriesEndpointWebExtension;
import dev.retrykit.RetryRegistry;
import dev.retrykit.cluster.RetryCluster;
import dev.retrykit.spi.TimeSource;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.endpoint.expose.EndpointExposure;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.web.PathMappedEndpoints;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Auto-configuration of the {@code retries} endpoint and its web extension, when the actuator is on the
 * class path, a {@link RetryRegistry} bean exists and the endpoint is available (access not
 * {@code none}, and exposed). The clock used for the age of cache entries is the application's
 * {@link TimeSource} bean when there is exactly one, else the system clock.
 */
@AutoConfiguration(afterName = "dev.retrykit.spring.boot.autoconfigure.RetryAutoConfiguration")
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
@ConditionalOnBean(RetryRegistry.class)
@EnableConfigurationProperties(RetriesEndpointProperties.class)
public final class RetriesEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnAvailableEndpoint
	RetriesEndpoint retriesEndpoint(RetryRegistry retryRegistry, RetriesEndpointProperties properties,
			ObjectProvider<TimeSource> timeSource, ObjectProvider<RetryCluster> cluster) {
		return new RetriesEndpoint(retryRegistry, properties.getShowValues(),
				timeSource.getIfUnique(() -> TimeSource.SYSTEM), cluster.getIfAvailable());
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(RetriesEndpoint.class)
	@ConditionalOnAvailableEndpoint(exposure = EndpointExposure.WEB)
	RetriesEndpointWebExtension retriesEndpointWebExtension(RetriesEndpoint retriesEndpoint,
			RetriesEndpointProperties properties) {
		return new RetriesEndpointWebExtension(retriesEndpoint, properties.getShowValues(), properties.getRoles());
	}

	/** On Spring MVC, a write whose body is not JSON is answered with the expected form too. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
	@ConditionalOnClass(name = "org.springframework.web.servlet.HandlerExceptionResolver")
	static class ServletConfiguration {

		@Bean
		@ConditionalOnAvailableEndpoint(endpoint = RetriesEndpoint.class, exposure = EndpointExposure.WEB)
		@ConditionalOnMissingBean
		RetriesEndpointUnreadableBodyResolver retriesEndpointUnreadableBodyResolver(
				ObjectProvider<PathMappedEndpoints> endpoints) {
			return new RetriesEndpointUnreadableBodyResolver(() -> {
				PathMappedEndpoints mapped = endpoints.getIfAvailable();
				return (mapped != null) ? mapped.getPath(EndpointId.of("retries")) : null;
			});
		}

	}

}
