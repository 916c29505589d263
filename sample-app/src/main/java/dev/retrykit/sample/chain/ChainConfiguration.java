package dev.retrykit.sample.chain;

import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Profile;

/** With the {@code chain} profile: the tier's properties and its records. */
@Configuration(proxyBeanMethods = false)
@Profile("chain")
@EnableConfigurationProperties(ChainProperties.class)
class ChainConfiguration {

	@Bean
	ChainRecords chainRecords() {
		return new ChainRecords();
	}

}
