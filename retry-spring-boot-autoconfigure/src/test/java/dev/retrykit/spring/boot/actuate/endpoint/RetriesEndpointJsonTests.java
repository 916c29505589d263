package dev.retrykit.spring.boot.actuate.endpoint;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;

import dev.retrykit.RetryRegistry;
import dev.retrykit.VirtualTime;
import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.budget.RetryBudgetConfig;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.actuate.endpoint.Show;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The JSON shape with a plain Jackson 3 mapper, which (unlike the actuator's own) includes nulls by
 * default: the records must leave out what an instance does not have by themselves.
 */
class RetriesEndpointJsonTests {

	private final VirtualTime time = new VirtualTime();

	private final RetryRegistry registry = TestRetryRegistries.create(this.time);

	private final RetriesEndpoint endpoint = new RetriesEndpoint(this.registry, Show.NEVER, this.time);

	private final JsonMapper json = JsonMapper.builder().build();

	@Test
	void writesTheSummaryWithoutNulls() {
		String inventory = this.json.writeValueAsString(this.endpoint.retries().instances().get("inventory"));

		assertThat(inventory).isEqualTo("{\"config\":{\"maxAttempts\":4,\"maxDuration\":\"10s\",\"backoff\":"
				+ "{\"type\":\"exponential\",\"delay\":\"100ms\",\"multiplier\":2.0,\"maxDelay\":\"2s\",\"jitter\":0.5},"
				+ "\"retryOn\":[\"java.io.IOException\"],\"ignore\":[\"java.lang.IllegalArgumentException\"],"
				+ "\"traverseCauses\":true,\"httpStatus\":\"429,500-599\",\"stateful\":false},\"calls\":{\"successfulWithoutRetry\":0,"
				+ "\"successfulWithRetry\":0,\"failedWithoutRetry\":0,\"failedWithRetry\":0},\"attempts\":0,"
				+ "\"recoveries\":0,\"rejections\":{\"circuitOpen\":0,\"budgetExhausted\":0,\"deadline\":0,\"downstreamExhausted\":0}}");
	}

	@Test
	void writesNotRecoverableAfterIgnoreOnlyWhenTheInstanceHasSome() {
		RetryRegistry strict = RetryRegistry.builder().virtualTime(this.time)
			.instance("strict", null, (config) -> config.backoff(BackoffPolicy.none()).ignore(IllegalArgumentException.class)
				.notRecoverable(FileNotFoundException.class, IllegalStateException.class))
			.build();
		String config = this.json.writeValueAsString(
				new RetriesEndpoint(strict, Show.NEVER, this.time).retries().instances().get("strict").config());

		assertThat(config).contains("\"ignore\":[\"java.lang.IllegalArgumentException\"],\"notRecoverable\":"
				+ "[\"java.io.FileNotFoundException\",\"java.lang.IllegalStateException\"],");
		assertThat(this.json.writeValueAsString(this.endpoint.retries().instances().get("inventory").config()))
			.doesNotContain("notRecoverable");
	}

	@Test
	void writesTheCircuitAndBudgetParts() {
		TestRetryRegistries.openPaymentsCircuit(this.registry);

		assertThat(this.json.writeValueAsString(this.endpoint.retries().instances().get("payments").circuit()))
			.isEqualTo("{\"state\":\"OPEN\",\"forcedOpen\":false,\"remainingOpen\":\"30s\",\"consecutiveFailures\":0,"
					+ "\"totalFailures\":0,\"totalSuccesses\":0,\"failureRate\":0.0}");
		assertThat(this.json.writeValueAsString(this.endpoint.retries().instances().get("search").budget()))
			.isEqualTo("{\"kind\":\"token-bucket\",\"tokens\":2.0,\"maxTokens\":2}");
	}

	@Test
	void writesARatioBudgetWithItsKindSettingsAndTheRetriesItAllowsNow() {
		RetryRegistry ratio = RetryRegistry.builder().virtualTime(this.time)
			.instance("lookup", null, (config) -> config.budget(RetryBudgetConfig.builder().ratio(0.2).minPerSecond(3)
				.window(Duration.ofSeconds(10)).build(), null))
			.build();
		RetriesEndpoint endpoint = new RetriesEndpoint(ratio, Show.NEVER, this.time);
		for (int i = 0; i < 10; i++) {
			ratio.template("lookup").execute((context) -> "ok");
		}
		assertThat(this.json.writeValueAsString(endpoint.retries().instances().get("lookup").budget()))
			.isEqualTo("{\"kind\":\"ratio\",\"ratio\":0.2,\"minPerSecond\":3,\"window\":\"10s\",\"available\":32.0}");
		assertThat(this.json.writeValueAsString(endpoint.retries().instances().get("lookup").config().budget()))
			.isEqualTo("{\"kind\":\"ratio\",\"ratio\":0.2,\"minPerSecond\":3,\"window\":\"10s\"}");
	}

	@Test
	void writesTheFailbackPartWithItsTasksInDetail() {
		RetryRegistry withFailback = RetryRegistry.builder().virtualTime(this.time)
			.instance("audit", null, (config) -> config.maxAttempts(2).backoff(BackoffPolicy.fixed(Duration.ofSeconds(1))))
			.build();
		RetriesEndpoint endpoint = new RetriesEndpoint(withFailback, Show.NEVER, this.time);
		Runnable failing = () -> {
			throw new UncheckedIOException("declined", new IOException());
		};
		withFailback.failback("audit").submit("order-1", failing);
		this.time.advance(Duration.ofSeconds(1));
		withFailback.failback("audit").submit("order-2", failing);

		assertThat(this.json.writeValueAsString(endpoint.retries().instances().get("audit").failback()))
			.isEqualTo("{\"pending\":1,\"exhausted\":1,\"rejected\":0,\"capacity\":10000}");
		assertThat(this.json.writeValueAsString(endpoint.retry("audit").failback()))
			.isEqualTo("{\"pending\":1,\"exhausted\":1,\"rejected\":0,\"capacity\":10000,\"tasks\":["
					+ "{\"state\":\"PENDING\",\"key\":\"******\",\"attempts\":1,"
					+ "\"lastErrorType\":\"java.io.UncheckedIOException\",\"lastErrorMessage\":\"******\","
					+ "\"submittedAt\":\"2026-01-01T00:00:01Z\",\"nextAttemptAt\":\"2026-01-01T00:00:02Z\"},"
					+ "{\"state\":\"EXHAUSTED\",\"key\":\"******\",\"attempts\":2,"
					+ "\"lastErrorType\":\"java.io.UncheckedIOException\",\"lastErrorMessage\":\"******\","
					+ "\"submittedAt\":\"2026-01-01T00:00:00Z\"}],\"tasksOmitted\":0}");
	}

}
