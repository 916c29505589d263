package dev.retrykit.spring.boot.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Enumeration;
import java.util.Map;
import java.util.Properties;

import com.jayway.jsonpath.JsonPath;
import dev.retrykit.RetryConfig;
import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.budget.RetryBudgetConfig;
import dev.retrykit.circuit.CircuitBreakerConfig;
import dev.retrykit.spring.boot.convert.CompoundDurationConverter;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ConfigurationMetadataTests {

	private final Object metadata = read();

	@Test
	void everyPropertyHasADescription() {
		List<Map<String, Object>> properties = JsonPath.read(this.metadata, "$.properties[*]");
		assertThat(properties).hasSizeGreaterThan(30);
		assertThat(properties).allSatisfy(property -> assertThat((String) property.get("description"))
			.as("description of %s", property.get("name")).isNotBlank());
		assertThat(properties).extracting(property -> property.get("name")).contains("retry.enabled",
				"retry.aspect-order", "retry.defaults.max-attempts", "retry.defaults.backoff.multiplier",
				"retry.defaults.circuit-breaker.trip", "retry.defaults.budget.token-ratio", "retry.context-cache.capacity",
				"retry.timer.tick", "retry.timer.wheel-size", "retry.instances", "retry.configs", "retry.targets");
	}

	@Test
	void theHttpClientPropertiesHaveDescriptionsAndDefaults() {
		List<String> names = JsonPath.read(this.metadata, "$.properties[*].name");
		assertThat(names).contains("retry.defaults.http.hosts", "retry.defaults.http.service-groups",
				"retry.defaults.http.methods", "retry.http.attempt-header", "retry.http.exhausted-header",
				"retry.http.deadline-header", "retry.http.propagation.enabled");
		assertThat(JsonPath.<List<Object>>read(this.metadata,
				"$.properties[?(@.name == 'retry.http.attempt-header')].defaultValue")).containsExactly("X-Retry-Attempt");
		assertThat(JsonPath.<List<Object>>read(this.metadata,
				"$.properties[?(@.name == 'retry.http.propagation.enabled')].defaultValue")).containsExactly(true);
		assertThat(JsonPath.<List<String>>read(this.metadata,
				"$.hints[?(@.name == 'retry.defaults.http.methods')].values[*].value")).containsExactly("POST", "PATCH");
	}

	@Test
	void theBackoffTypesHaveValueHints() {
		List<String> values = JsonPath.read(this.metadata,
				"$.hints[?(@.name == 'retry.defaults.backoff.type')].values[*].value");
		assertThat(values).containsExactly("none", "fixed", "linear", "exponential", "exponential-random",
				"uniform-random", "fibonacci", "full-jitter", "equal-jitter", "decorrelated-jitter");
	}

	@Test
	void theClusterEnginesHaveValueHintsAndTheEnginePropertyADescription() {
		List<String> values = JsonPath.read(this.metadata, "$.hints[?(@.name == 'retry.cluster.engine')].values[*].value");
		assertThat(values).containsExactly("hazelcast", "redis");
		List<String> descriptions = JsonPath.read(this.metadata,
				"$.properties[?(@.name == 'retry.cluster.engine')].description");
		assertThat(descriptions).singleElement().asString().contains("hazelcast", "redis", "Empty");
	}

	@Test
	void defaultsAreDocumented() {
		assertThat(JsonPath.<List<Object>>read(this.metadata, "$.properties[?(@.name == 'retry.aspect-order')].defaultValue"))
			.containsExactly(Integer.MAX_VALUE - 10);
		assertThat(JsonPath.<List<Object>>read(this.metadata, "$.properties[?(@.name == 'retry.enabled')].defaultValue"))
			.containsExactly(true);
	}

	@Test
	void everyInstanceKeyShowsItsDefault() {
		Map<String, Object> expected = new LinkedHashMap<>();
		expected.put("max-attempts", RetryConfig.builder().build().getMaxAttempts());
		expected.put("stateful", false);
		expected.put("honor-retry-after", false);
		expected.put("backoff.type", BackoffPolicy.DEFAULT_TYPE.getId());
		expected.put("backoff.delay", BackoffPolicy.DEFAULT_DELAY);
		expected.put("backoff.multiplier", BackoffPolicy.DEFAULT_MULTIPLIER);
		expected.put("backoff.max-delay", BackoffPolicy.DEFAULT_MAX_DELAY);
		expected.put("backoff.jitter", BackoffPolicy.DEFAULT_JITTER);
		expected.put("circuit-breaker.enabled", false);
		expected.put("circuit-breaker.trip", CircuitBreakerConfig.DEFAULT_TRIP);
		expected.put("circuit-breaker.interval", CircuitBreakerConfig.DEFAULT_INTERVAL);
		expected.put("circuit-breaker.timeout", CircuitBreakerConfig.DEFAULT_TIMEOUT);
		expected.put("circuit-breaker.max-requests", CircuitBreakerConfig.DEFAULT_MAX_REQUESTS);
		expected.put("budget.enabled", false);
		expected.put("budget.max-tokens", RetryBudgetConfig.DEFAULT_MAX_TOKENS);
		expected.put("budget.token-ratio", RetryBudgetConfig.DEFAULT_TOKEN_RATIO);
		expected.forEach((key, value) -> {
			List<Object> shown = JsonPath.read(this.metadata,
					"$.properties[?(@.name == 'retry.defaults." + key + "')].defaultValue");
			assertThat(shown).as("default of retry.defaults.%s", key).hasSize(1);
			Object actual = shown.get(0);
			if (value instanceof Duration) {
				actual = new CompoundDurationConverter().convert((String) actual);
			}
			else if (value instanceof Double) {
				actual = ((Number) actual).doubleValue(); // the processor writes 2.0 as 2
			}
			assertThat(actual).as("default of retry.defaults.%s", key).isEqualTo(value);
		});
	}

	@Test
	void autoConfigurationConditionsArePrecomputedForBoot() throws IOException {
		Properties conditions = new Properties();
		Enumeration<URL> resources = getClass().getClassLoader()
			.getResources("META-INF/spring-autoconfigure-metadata.properties");
		while (resources.hasMoreElements()) {
			try (InputStream in = resources.nextElement().openStream()) {
				conditions.load(in);
			}
		}
		assertThat(conditions.getProperty(RetryAutoConfiguration.class.getName() + ".AutoConfigureAfter"))
			.isEqualTo("org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration");
		assertThat(conditions.getProperty(RetryAutoConfiguration.class.getName() + "$HttpClientConfiguration.ConditionalOnClass"))
			.isEqualTo("org.springframework.web.client.RestClientResponseException");
	}

	private static Object read() {
		try (InputStream in = ConfigurationMetadataTests.class
			.getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
			return JsonPath.parse(in).json();
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
