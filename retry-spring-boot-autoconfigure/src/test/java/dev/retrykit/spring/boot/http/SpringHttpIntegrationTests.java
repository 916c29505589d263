package dev.retrykit.spring.boot.http;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;

import dev.retrykit.RetryTemplate;
import dev.retrykit.VirtualTime;
import dev.retrykit.spi.StatusExtractor;
import dev.retrykit.spring.boot.autoconfigure.RetryAutoConfiguration;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.HttpServerErrorException;
import org.springframework.web.reactive.function.client.WebClientResponseException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SpringHttpIntegrationTests {

	private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RetryAutoConfiguration.class))
		.withBean(VirtualTime.class, () -> new VirtualTime(NOW));

	@Test
	void readsTheStatusOfRestClientAndWebClientExceptions() {
		SpringHttpStatusExtractor extractor = new SpringHttpStatusExtractor(getClass().getClassLoader());
		assertThat(extractor.kind()).isEqualTo(StatusExtractor.Kind.HTTP);
		assertThat(extractor.statusOf(new HttpServerErrorException(HttpStatus.SERVICE_UNAVAILABLE))).isEqualTo(503);
		assertThat(extractor.statusOf(new HttpClientErrorException(HttpStatus.TOO_MANY_REQUESTS))).isEqualTo(429);
		assertThat(extractor.statusOf(WebClientResponseException.create(502, "Bad Gateway", null, null, null)))
			.isEqualTo(502);
		assertThat(extractor.statusOf(new IllegalStateException())).isEqualTo(StatusExtractor.NO_STATUS);
	}

	@Test
	void readsRetryAfterInSecondsAndAsAnHttpDate() {
		assertThat(RetryAfterDelayHintExtractor.parse("120", NOW.toEpochMilli())).isEqualTo(Duration.ofSeconds(120));
		assertThat(RetryAfterDelayHintExtractor.parse("Thu, 01 Jan 2026 00:00:30 GMT", NOW.toEpochMilli()))
			.isEqualTo(Duration.ofSeconds(30));
		assertThat(RetryAfterDelayHintExtractor.parse("Wed, 31 Dec 2025 23:00:00 GMT", NOW.toEpochMilli()))
			.isEqualTo(Duration.ZERO);
		assertThat(RetryAfterDelayHintExtractor.parse("soon", NOW.toEpochMilli())).isNull();
	}

	@Test
	void readsRetryAfterFromWebClientExceptionsToo() {
		HttpHeaders headers = new HttpHeaders();
		headers.set(HttpHeaders.RETRY_AFTER, "7");
		RetryAfterDelayHintExtractor extractor = new RetryAfterDelayHintExtractor(getClass().getClassLoader(),
				new VirtualTime(NOW));
		assertThat(extractor.delayHint(WebClientResponseException.create(503, "Unavailable", headers, null, null)))
			.isEqualTo(Duration.ofSeconds(7));
		assertThat(extractor.delayHint(new IllegalStateException())).isNull();
	}

	@Test
	void httpStatusMatchingRetriesListedStatusesOnly() {
		this.runner.withPropertyValues("retry.instances.api.match.http-status=429,500-599").run(context -> {
			RetryTemplate api = context.getBean("apiRetryTemplate", RetryTemplate.class);
			AtomicInteger calls = new AtomicInteger();
			assertThatThrownBy(() -> api.execute(ctx -> {
				calls.incrementAndGet();
				throw new HttpServerErrorException(HttpStatus.SERVICE_UNAVAILABLE);
			})).isInstanceOf(HttpServerErrorException.class);
			assertThat(calls).hasValue(3);
			calls.set(0);
			assertThatThrownBy(() -> api.execute(ctx -> {
				calls.incrementAndGet();
				throw new HttpClientErrorException(HttpStatus.NOT_FOUND);
			})).isInstanceOf(HttpClientErrorException.class);
			assertThat(calls).hasValue(1);
		});
	}

	@Test
	void honorRetryAfterWaitsAsLongAsTheServerAsks() {
		this.runner.withPropertyValues("retry.instances.api.honor-retry-after=true", "retry.instances.api.max-attempts=2")
			.run(context -> {
				RetryTemplate api = context.getBean("apiRetryTemplate", RetryTemplate.class);
				HttpHeaders headers = new HttpHeaders();
				headers.set(HttpHeaders.RETRY_AFTER, "5");
				assertThatThrownBy(() -> api.execute(ctx -> {
					throw HttpClientErrorException.create(HttpStatus.TOO_MANY_REQUESTS, "Too Many", headers, new byte[0],
							StandardCharsets.UTF_8);
				})).isInstanceOf(HttpClientErrorException.class);
				assertThat(context.getBean(VirtualTime.class).sleeps()).containsExactly(Duration.ofSeconds(5));
			});
	}

	@Test
	void withoutWebFluxOnlyRestClientExceptionsAreRead() {
		this.runner.withClassLoader(new FilteredClassLoader("org.springframework.web.reactive"))
			.run(context -> assertThat(context.getBean(SpringHttpStatusExtractor.class)
				.statusOf(new HttpServerErrorException(HttpStatus.BAD_GATEWAY))).isEqualTo(502));
	}

	@Test
	void honorRetryAfterWithoutSpringWebFailsStartup() {
		this.runner.withClassLoader(new FilteredClassLoader("org.springframework.web"))
			.withPropertyValues("retry.instances.api.honor-retry-after=true")
			.run(context -> assertThat(NestedExceptionUtils.getMostSpecificCause(context.getStartupFailure()))
				.hasMessageContaining("Invalid value 'true' for property 'retry.instances.api.honor-retry-after'")
				.hasMessageContaining("spring-web is not on the classpath"));
	}

}
