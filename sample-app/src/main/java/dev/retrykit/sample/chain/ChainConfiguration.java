package dev.retrykit.sample.chain;

import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.http.client.HttpComponentsClientHttpRequestFactoryBuilder;
import org.springframework.boot.http.client.autoconfigure.ClientHttpRequestFactoryBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Profile;

/**
 * With the {@code chain} profile: the tier's properties, its records, and the size of its blocking client's
 * connection pool ({@code sample.chain.max-connections-per-route}).
 */
@Configuration(proxyBeanMethods = false)
@Profile("chain")
@EnableConfigurationProperties(ChainProperties.class)
class ChainConfiguration {

	@Bean
	ChainRecords chainRecords() {
		return new ChainRecords();
	}

	@Bean
	ClientHttpRequestFactoryBuilderCustomizer<HttpComponentsClientHttpRequestFactoryBuilder> chainConnectionPool(
			ChainProperties properties) {
		Integer perRoute = properties.maxConnectionsPerRoute();
		if (perRoute != null && perRoute < 1) {
			throw new IllegalArgumentException(
					"Invalid sample.chain.max-connections-per-route (" + perRoute + "): must be 1 or more");
		}
		return builder -> (perRoute == null) ? builder : builder.withConnectionManagerCustomizer(
				connections -> connections.setMaxConnPerRoute(perRoute).setMaxConnTotal(2 * perRoute));
	}

}
