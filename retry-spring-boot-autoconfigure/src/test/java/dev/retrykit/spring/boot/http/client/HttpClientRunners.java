package dev.retrykit.spring.boot.http.client;

import dev.retrykit.VirtualTime;
import dev.retrykit.spring.boot.autoconfigure.RetryAutoConfiguration;
import dev.retrykit.spring.boot.autoconfigure.RetryHttpClientAutoConfiguration;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.imperative.ImperativeHttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.webclient.autoconfigure.WebClientAutoConfiguration;

/**
 * The application a test of the HTTP clients starts: retrykit's auto-configuration and its HTTP clients', Boot's for
 * the client under test, and a {@link VirtualTime} bean, so that backoffs run in virtual time. A test adds its
 * properties and beans.
 */
final class HttpClientRunners {

	private HttpClientRunners() {
	}

	/** {@return an application with Boot's {@code RestClient.Builder} over its default request factory} */
	static ApplicationContextRunner restClient() {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(RetryAutoConfiguration.class, RetryHttpClientAutoConfiguration.class,
					ImperativeHttpClientAutoConfiguration.class, RestClientAutoConfiguration.class))
			.withBean(VirtualTime.class, VirtualTime::new);
	}

	/** {@return an application with Boot's {@code WebClient.Builder}} */
	static ApplicationContextRunner webClient() {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(RetryAutoConfiguration.class, RetryHttpClientAutoConfiguration.class,
					WebClientAutoConfiguration.class))
			.withBean(VirtualTime.class, VirtualTime::new);
	}

}
