package dev.retrykit.spring.boot.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Map;

import com.jayway.jsonpath.JsonPath;
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
	void theBackoffTypesHaveValueHints() {
		List<String> values = JsonPath.read(this.metadata,
				"$.hints[?(@.name == 'retry.defaults.backoff.type')].values[*].value");
		assertThat(values).containsExactly("none", "fixed", "linear", "exponential", "exponential-random",
				"uniform-random", "fibonacci", "full-jitter", "equal-jitter", "decorrelated-jitter");
	}

	@Test
	void defaultsAreDocumented() {
		assertThat(JsonPath.<List<Object>>read(this.metadata, "$.properties[?(@.name == 'retry.aspect-order')].defaultValue"))
			.containsExactly(Integer.MAX_VALUE - 10);
		assertThat(JsonPath.<List<Object>>read(this.metadata, "$.properties[?(@.name == 'retry.enabled')].defaultValue"))
			.containsExactly(true);
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
