package dev.retrykit.spring.boot.actuate.endpoint;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.micrometer.metrics.test.autoconfigure.AutoConfigureMetrics;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.http.MediaType;
import org.springframework.test.context.TestPropertySource;
import org.springframework.test.web.servlet.client.RestTestClient;
import org.springframework.test.web.servlet.client.RestTestClient.ResponseSpec;

import static dev.retrykit.spring.boot.actuate.endpoint.TestRetryRegistries.SECRET;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The real application on a random port, over real HTTP: exposure, the JSON shape, 404, read-only
 * refusal of writes, writes with unrestricted access, masking under each show-values setting (cache
 * keys, failback task keys, exception messages), the health contributor and the meters in the
 * Prometheus output.
 */
class RetriesEndpointHttpTests {

	private static final String EXPOSE = "management.endpoints.web.exposure.include=health,retries,prometheus";

	@Nested
	@SpringBootTest(classes = RetriesTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
			properties = { EXPOSE, "management.endpoint.health.show-details=always",
					"management.metrics.tags.application=shop" })
	@AutoConfigureRestTestClient
	@AutoConfigureMetrics
	class WithDefaults {

		@Autowired
		private RestTestClient client;

		@Test
		void exposesTheEndpoint() {
			this.client.get().uri("/actuator").exchange().expectStatus().isOk().expectBody()
				.jsonPath("$._links.retries.href").exists()
				.jsonPath("$._links['retries-name'].href").exists();
		}

		@Test
		void listsEveryInstanceWithItsConfigCountersAndParts() {
			this.client.get().uri("/actuator/retries").exchange().expectStatus().isOk().expectBody()
				.jsonPath("$.instances.length()").isEqualTo(4)
				.jsonPath("$.instances.inventory.config.maxAttempts").isEqualTo(4)
				.jsonPath("$.instances.inventory.config.maxDuration").isEqualTo("10s")
				.jsonPath("$.instances.inventory.config.backoff.type").isEqualTo("exponential")
				.jsonPath("$.instances.inventory.config.backoff.delay").isEqualTo("100ms")
				.jsonPath("$.instances.inventory.config.backoff.maxDelay").isEqualTo("2s")
				.jsonPath("$.instances.inventory.config.httpStatus").isEqualTo("429,500-599")
				.jsonPath("$.instances.inventory.calls.successfulWithoutRetry").isEqualTo(1)
				.jsonPath("$.instances.inventory.calls.successfulWithRetry").isEqualTo(1)
				// The stateful call that failed and rethrew (TestRetryRegistries) is a failed call of its own.
				.jsonPath("$.instances.inventory.calls.failedWithoutRetry").isEqualTo(1)
				.jsonPath("$.instances.inventory.calls.failedWithRetry").isEqualTo(0)
				.jsonPath("$.instances.inventory.attempts").isEqualTo(4)
				.jsonPath("$.instances.inventory.recoveries").isEqualTo(0)
				.jsonPath("$.instances.inventory.contextCache.size").isEqualTo(1)
				.jsonPath("$.instances.inventory.contextCache.capacity").isEqualTo(4096)
				.jsonPath("$.instances.inventory.contextCache.entries").doesNotExist()
				.jsonPath("$.instances.inventory.circuit").doesNotExist()
				.jsonPath("$.instances.inventory.budget").doesNotExist()
				.jsonPath("$.instances.inventory.recentEvents").doesNotExist()
				.jsonPath("$.instances.payments.circuit.state").isEqualTo("OPEN")
				.jsonPath("$.instances.payments.circuit.remainingOpen").isEqualTo("25s")
				.jsonPath("$.instances.payments.config.circuitBreaker.trip").isEqualTo("consecutiveFailures >= 2")
				.jsonPath("$.instances.payments.contextCache").doesNotExist()
				.jsonPath("$.instances.search.budget.tokens").isEqualTo(1.0)
				.jsonPath("$.instances.search.budget.maxTokens").isEqualTo(2)
				.jsonPath("$.instances.search.rejections.budgetExhausted").isEqualTo(1)
				.jsonPath("$.instances.search.rejections.circuitOpen").isEqualTo(0)
				.jsonPath("$.instances.search.failback").doesNotExist()
				.jsonPath("$.instances.audit.failback.pending").isEqualTo(1)
				.jsonPath("$.instances.audit.failback.exhausted").isEqualTo(1)
				.jsonPath("$.instances.audit.failback.tasks").doesNotExist();
		}

		@Test
		void showsFailbackTasksInDetailWithMaskedKeysAndMessages() {
			String body = detail("/actuator/retries/audit").expectStatus().isOk().expectBody(String.class)
				.returnResult().getResponseBody();
			assertThat(body).doesNotContain(SECRET);
			this.client.get().uri("/actuator/retries/audit").exchange().expectBody()
				.jsonPath("$.failback.pending").isEqualTo(1)
				.jsonPath("$.failback.exhausted").isEqualTo(1)
				.jsonPath("$.failback.tasksOmitted").isEqualTo(0)
				.jsonPath("$.failback.tasks[0].state").isEqualTo("PENDING")
				.jsonPath("$.failback.tasks[0].key").isEqualTo("******")
				.jsonPath("$.failback.tasks[0].attempts").isEqualTo(1)
				.jsonPath("$.failback.tasks[0].lastErrorType").isEqualTo("java.io.UncheckedIOException")
				.jsonPath("$.failback.tasks[0].lastErrorMessage").isEqualTo("******")
				.jsonPath("$.failback.tasks[0].submittedAt").value((submittedAt) -> assertThat((String) submittedAt)
					.startsWith("2026-01-01T00:00:05"))
				.jsonPath("$.failback.tasks[1].state").isEqualTo("EXHAUSTED")
				.jsonPath("$.failback.tasks[1].key").isEqualTo("******")
				.jsonPath("$.failback.tasks[1].attempts").isEqualTo(3)
				.jsonPath("$.failback.tasks[1].submittedAt").value((submittedAt) -> assertThat((String) submittedAt)
					.startsWith("2026-01-01T00:00:00"))
				.jsonPath("$.failback.tasks[1].nextAttemptAt").doesNotExist();
			// The clock is just past 5s (the jittered backoff of inventory at startup); the retry is 100ms later.
			JsonNode pending = JsonMapper.builder().build().readTree(body).at("/failback/tasks/0");
			assertThat(Duration.between(Instant.parse(pending.get("submittedAt").asString()),
					Instant.parse(pending.get("nextAttemptAt").asString()))).isEqualTo(Duration.ofMillis(100));
		}

		@Test
		void showsOneInstanceInDetailWithMaskedValues() {
			String body = detail("/actuator/retries/inventory").expectStatus().isOk().expectBody(String.class)
				.returnResult().getResponseBody();
			assertThat(body).doesNotContain(SECRET);
			this.client.get().uri("/actuator/retries/inventory").exchange().expectBody()
				.jsonPath("$.contextCache.entries[0].key").isEqualTo("******")
				.jsonPath("$.contextCache.entries[0].retryCount").isEqualTo(1)
				.jsonPath("$.contextCache.entries[0].lastErrorType").isEqualTo("java.io.IOException")
				.jsonPath("$.contextCache.entries[0].age").isEqualTo("5s")
				.jsonPath("$.contextCache.entriesOmitted").isEqualTo(0)
				.jsonPath("$.recentEvents[0].type").isEqualTo("RETRY")
				.jsonPath("$.recentEvents[0].exceptionType").isEqualTo("java.io.IOException")
				.jsonPath("$.recentEvents[0].exceptionMessage").isEqualTo("******")
				.jsonPath("$.recentEvents[0].delay").exists()
				.jsonPath("$.recentEvents[0].time").isEqualTo("2026-01-01T00:00:00Z")
				.jsonPath("$.recentEventsOmitted").isEqualTo(0);
		}

		@Test
		void answers404ForAnUnknownInstance() {
			detail("/actuator/retries/unknown").expectStatus().isNotFound().expectBody()
				.jsonPath("$.message").isEqualTo("No retry instance named 'unknown'; known instances: "
						+ "[audit, inventory, payments, search]");
		}

		@Test
		void refusesWritesWhileReadOnly() {
			post("payments", Map.of("action", "close-circuit")).expectStatus().isEqualTo(405);
			this.client.get().uri("/actuator/retries/payments").exchange().expectBody()
				.jsonPath("$.circuit.state").isEqualTo("OPEN");
		}

		@Test
		void keepsValuesMaskedEvenForAnAuthenticatedUser() {
			this.client.get().uri("/actuator/retries/inventory").header("X-User", "alice").exchange().expectBody()
				.jsonPath("$.contextCache.entries[0].key").isEqualTo("******");
		}

		@Test
		void reportsTheOpenCircuitInHealthWhileStayingUp() {
			this.client.get().uri("/actuator/health").exchange().expectStatus().isOk().expectBody()
				.jsonPath("$.status").isEqualTo("UP")
				.jsonPath("$.components.retries.status").isEqualTo("UP")
				.jsonPath("$.components.retries.details.payments.state").isEqualTo("OPEN")
				.jsonPath("$.components.retries.details.payments.remainingOpen").isEqualTo("25s");
		}

		@Test
		void publishesTheMetersWithCommonTags() {
			String prometheus = this.client.get().uri("/actuator/prometheus").exchange().expectStatus().isOk()
				.expectBody(String.class).returnResult().getResponseBody();
			assertThat(prometheus)
				.contains("retry_calls_total{application=\"shop\",kind=\"successful_with_retry\",name=\"inventory\"} 1.0")
				.contains("retry_attempts_total{application=\"shop\",name=\"inventory\"} 4.0")
				.contains("retry_rejections_total{application=\"shop\",name=\"search\",reason=\"budget_exhausted\"} 1.0")
				.contains("retry_circuit_state{application=\"shop\",name=\"payments\",state=\"open\"} 1.0")
				.contains("retry_budget_tokens{application=\"shop\",name=\"search\"} 1.0")
				.contains("retry_context_cache_size{application=\"shop\",name=\"inventory\"} 1.0")
				.contains("retry_failback_pending{application=\"shop\",name=\"audit\"} 1.0")
				.contains("retry_failback_pending{application=\"shop\",name=\"inventory\"} 0.0");
		}

		private ResponseSpec detail(String uri) {
			return this.client.get().uri(uri).exchange();
		}

		private ResponseSpec post(String name, Map<String, String> body) {
			return this.client.post().uri("/actuator/retries/" + name).contentType(MediaType.APPLICATION_JSON).body(body)
				.exchange();
		}

	}

	@Nested
	@SpringBootTest(classes = RetriesTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT)
	@TestPropertySource(properties = { EXPOSE, "management.endpoint.retries.access=unrestricted" })
	@AutoConfigureRestTestClient
	class WithUnrestrictedAccess {

		@Autowired
		private RestTestClient client;

		@Test
		void closesAndOpensACircuit() {
			post("payments", "close-circuit").expectStatus().isOk().expectBody()
				.jsonPath("$.circuit.state").isEqualTo("CLOSED");
			post("payments", "open-circuit").expectStatus().isOk().expectBody()
				.jsonPath("$.circuit.state").isEqualTo("OPEN")
				.jsonPath("$.circuit.forcedOpen").isEqualTo(true);
		}

		@Test
		void clearsTheContextCache() {
			// The instance was used for stateful retry, so its cache stays in view once empty.
			post("inventory", "clear-cache").expectStatus().isOk().expectBody()
				.jsonPath("$.contextCache.size").isEqualTo(0);
		}

		@Test
		void answers400ForAnUnknownActionOrAnInstanceWithoutCircuit() {
			post("payments", "reboot").expectStatus().isBadRequest().expectBody()
				.jsonPath("$.message").isEqualTo("Unknown action 'reboot' for retry instance 'payments'; "
						+ "use open-circuit, close-circuit or clear-cache");
			post("search", "open-circuit").expectStatus().isBadRequest().expectBody()
				.jsonPath("$.message").value((message) -> assertThat((String) message)
					.startsWith("Retry instance 'search' has no circuit breaker"));
		}

		@Test
		void answers404ForAnActionOnAnUnknownInstance() {
			post("unknown", "clear-cache").expectStatus().isNotFound();
		}

		private ResponseSpec post(String name, String action) {
			return this.client.post().uri("/actuator/retries/" + name).contentType(MediaType.APPLICATION_JSON)
				.body(Map.of("action", action)).exchange();
		}

	}

	@Nested
	@SpringBootTest(classes = RetriesTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT)
	@TestPropertySource(properties = { EXPOSE, "management.endpoint.retries.show-values=always" })
	@AutoConfigureRestTestClient
	class WithValuesAlwaysShown {

		@Autowired
		private RestTestClient client;

		@Test
		void showsKeysAndMessagesToAnonymousCallers() {
			this.client.get().uri("/actuator/retries/inventory").exchange().expectStatus().isOk().expectBody()
				.jsonPath("$.contextCache.entries[0].key").isEqualTo(SECRET)
				.jsonPath("$.recentEvents[0].exceptionMessage").isEqualTo("connection reset");
		}

	}

	@Nested
	@SpringBootTest(classes = RetriesTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT)
	@TestPropertySource(properties = { EXPOSE, "management.endpoint.retries.show-values=when-authorized",
			"management.endpoint.retries.roles=OPS" })
	@AutoConfigureRestTestClient
	class WithValuesShownWhenAuthorized {

		@Autowired
		private RestTestClient client;

		@Test
		void masksValuesForAnonymousCallers() {
			this.client.get().uri("/actuator/retries/inventory").exchange().expectBody()
				.jsonPath("$.contextCache.entries[0].key").isEqualTo("******");
		}

		@Test
		void masksValuesForAUserWithoutTheRole() {
			this.client.get().uri("/actuator/retries/inventory").header("X-User", "alice").exchange().expectBody()
				.jsonPath("$.contextCache.entries[0].key").isEqualTo("******");
		}

		@Test
		void showsValuesToAUserInTheRole() {
			this.client.get().uri("/actuator/retries/inventory").header("X-User", "bob").header("X-Roles", "OPS")
				.exchange().expectBody()
				.jsonPath("$.contextCache.entries[0].key").isEqualTo(SECRET)
				.jsonPath("$.recentEvents[0].exceptionMessage").isEqualTo("connection reset")
				.jsonPath("$.recentEvents[2].exceptionMessage").isEqualTo("declined " + SECRET);
			this.client.get().uri("/actuator/retries/audit").header("X-User", "bob").header("X-Roles", "OPS")
				.exchange().expectBody()
				.jsonPath("$.failback.tasks[0].key").isEqualTo("audit-2 " + SECRET)
				.jsonPath("$.failback.tasks[0].lastErrorMessage").isEqualTo("rejected " + SECRET)
				.jsonPath("$.failback.tasks[1].key").isEqualTo("audit-1 " + SECRET);
		}

		@Test
		void masksFailbackTasksForAUserWithoutTheRole() {
			this.client.get().uri("/actuator/retries/audit").header("X-User", "alice").exchange().expectBody()
				.jsonPath("$.failback.tasks[0].key").isEqualTo("******")
				.jsonPath("$.failback.tasks[0].lastErrorMessage").isEqualTo("******");
		}

	}

}
