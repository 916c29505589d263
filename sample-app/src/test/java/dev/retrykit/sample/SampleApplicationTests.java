package dev.retrykit.sample;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.retrykit.VirtualTime;
import dev.retrykit.sample.downstream.FlakyDownstream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Starts the sample on a random port, scripts the downstream, drives traffic through every client and
 * checks what users and operators see over real HTTP. Backoff, circuit timeouts and background retries
 * run in virtual time, so nothing waits.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = "spring.test.metrics.export=true")
class SampleApplicationTests extends SampleOverHttp {

	@Autowired
	FlakyDownstream downstream;

	@Autowired
	VirtualTime time;

	@BeforeEach
	void reset() {
		this.downstream.reset();
	}

	@Test
	void inventoryRetriesServerErrorsAndHonorsRetryAfter() throws Exception {
		long succeededBefore = counter("inventory", "successfulWithRetry");
		long answeredBefore = counter("inventory", "successfulWithoutRetry");
		this.downstream.failNext("inventory", 2, 503, 0);
		HttpResponse<String> stock = get("/shop/stock/SKU-1");
		assertThat(stock.statusCode()).isEqualTo(200);
		assertThat(stock.body()).contains("\"quantity\":42");
		assertThat(this.downstream.calls("inventory")).isEqualTo(3);

		this.downstream.failNext("inventory", 1, 429, 2);
		Duration before = this.time.elapsed();
		assertThat(get("/shop/stock/SKU-1").statusCode()).isEqualTo(200);
		assertThat(this.time.elapsed().minus(before)).isEqualTo(Duration.ofSeconds(2));

		this.downstream.failNext("inventory", 1, 404, 0);
		assertThat(get("/shop/stock/SKU-404").statusCode()).isEqualTo(502);

		assertThat(counter("inventory", "successfulWithRetry") - succeededBefore).isEqualTo(2);
		// A 404 is the downstream's answer, not a failure to retry: the call ends with it, and the client throws.
		assertThat(counter("inventory", "successfulWithoutRetry") - answeredBefore).isEqualTo(1);
		assertThat(get("/actuator/retries/inventory").body()).contains("\"budget\":{")
			.contains("\"httpStatus\":\"429,500-599\"");
	}

	@Test
	void pricingOpensItsCircuitFallsBackAndClosesAgain() throws Exception {
		this.downstream.down("pricing");
		for (int i = 0; i < 2; i++) {
			HttpResponse<String> price = get("/shop/price/SKU-1");
			assertThat(price.statusCode()).isEqualTo(200);
			assertThat(price.body()).contains("\"cached\":true");
		}
		assertThat(get("/actuator/retries").body()).contains("\"state\":\"OPEN\"");
		int callsWhileOpen = this.downstream.calls("pricing");
		assertThat(get("/shop/price/SKU-1").body()).contains("\"cached\":true");
		assertThat(this.downstream.calls("pricing")).isEqualTo(callsWhileOpen);
		assertThat(get("/actuator/health").body()).contains("\"retries\"").contains("OPEN");

		this.downstream.up("pricing");
		this.time.advance(Duration.ofSeconds(10));
		assertThat(get("/shop/price/SKU-1").body()).contains("\"cached\":false");
		assertThat(get("/actuator/retries/pricing").body()).contains("\"state\":\"CLOSED\"")
			.contains("\"circuitOpen\":1");
	}

	@Test
	void shippingRetriesAsynchronously() throws Exception {
		long succeededBefore = counter("shipping", "successfulWithRetry");
		this.downstream.failNext("shipping", 1, 502, 0);
		CompletableFuture<HttpResponse<String>> quote = getAsync("/shop/shipping/O-1");
		awaitPendingTask(Duration.ofMillis(100));
		this.time.advance(Duration.ofMillis(100));
		HttpResponse<String> response = quote.get(30, TimeUnit.SECONDS);
		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(response.body()).contains("\"days\":2");
		assertThat(counter("shipping", "successfulWithRetry") - succeededBefore).isEqualTo(1);
	}

	@Test
	void shippingRetriesAnAttemptThatTimedOut() throws Exception {
		long succeededBefore = counter("shipping", "successfulWithRetry");
		// The downstream really takes 3s (wall-clock) to answer the first call; the 1s attempt timeout
		// runs on the virtual clock, so the test times the attempt out long before that answer.
		this.downstream.slow("shipping", 3000, 1);
		CompletableFuture<HttpResponse<String>> quote = getAsync("/shop/shipping/O-3");
		awaitCalls("shipping", 1);
		awaitPendingTask(Duration.ofSeconds(1));
		this.time.advance(Duration.ofSeconds(1));
		awaitPendingTask(Duration.ofMillis(100));
		this.time.advance(Duration.ofMillis(100));
		HttpResponse<String> response = quote.get(30, TimeUnit.SECONDS);
		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(response.body()).contains("\"orderId\":\"O-3\"").contains("\"days\":2");
		assertThat(this.downstream.calls("shipping")).isEqualTo(2);
		assertThat(counter("shipping", "successfulWithRetry") - succeededBefore).isEqualTo(1);
		assertThat(get("/actuator/retries/shipping").body()).contains("\"type\":\"ATTEMPT_TIMEOUT\"");
	}

	@Test
	@ExtendWith(OutputCaptureExtension.class)
	void shippingAnswersGatewayTimeoutWhenEveryAttemptTimesOut(CapturedOutput output) throws Exception {
		long failedBefore = counter("shipping", "failedWithRetry");
		this.downstream.slow("shipping", 3000, -1);
		CompletableFuture<HttpResponse<String>> quote = getAsync("/shop/shipping/O-4");
		Duration[] backoff = { Duration.ofMillis(100), Duration.ofMillis(200) };
		for (int attempt = 1; attempt <= 3; attempt++) {
			awaitCalls("shipping", attempt);
			awaitPendingTask(Duration.ofSeconds(1));
			this.time.advance(Duration.ofSeconds(1));
			if (attempt < 3) {
				awaitPendingTask(backoff[attempt - 1]);
				this.time.advance(backoff[attempt - 1]);
			}
		}
		HttpResponse<String> response = quote.get(30, TimeUnit.SECONDS);
		assertThat(response.statusCode()).isEqualTo(504);
		assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
				type -> assertThat(type).startsWith("application/json"));
		assertThat(response.body()).isEqualTo("{\"error\":\"downstream call timed out\",\"cause\":\"TimeoutException\","
				+ "\"message\":\"Attempt 3 of retry 'shipping' timed out after 1s\"}");
		assertThat(counter("shipping", "failedWithRetry") - failedBefore).isEqualTo(1);
		assertThat(output.getOut()).doesNotContain("ERROR").doesNotContain("TimeoutException");
	}

	@Test
	void auditEventsAreRetriedInTheBackgroundUntilTheDownstreamIsBack() throws Exception {
		this.downstream.down("audit");
		HttpResponse<String> accepted = post("/shop/orders/O-7/audit");
		assertThat(accepted.statusCode()).isEqualTo(202);
		assertThat(accepted.body()).isEqualTo("{\"event\":\"O-7\",\"status\":\"accepted\"}");
		assertThat(get("/actuator/retries/audit").body()).contains("\"pending\":1");

		this.downstream.up("audit");
		this.time.advance(Duration.ofSeconds(1));
		assertThat(this.downstream.calls("audit")).isEqualTo(2);
		assertThat(get("/actuator/retries/audit").body()).contains("\"pending\":0");
	}

	@Test
	void paymentsRethrowAndTheNextRequestContinuesTheCount() throws Exception {
		this.downstream.failNext("payments", 1, 503, 0);
		HttpResponse<String> rethrown = post("/shop/orders/O-9/pay");
		assertThat(rethrown.statusCode()).isEqualTo(502);
		// Fields in a fixed order, so that the README's transcript is what every run shows.
		assertThat(rethrown.body()).isEqualTo("{\"error\":\"downstream call failed\",\"cause\":\"ServiceUnavailable\"}");
		String cached = get("/actuator/retries/payments").body();
		assertThat(cached).contains("\"contextCache\":{\"size\":1").contains("\"key\":\"******\"");
		assertThat(post("/shop/orders/O-9/pay").statusCode()).isEqualTo(200);
		assertThat(get("/actuator/retries/payments").body()).contains("\"successfulWithRetry\":1");
	}

	@Test
	void theUnannotatedClientIsRetriedThroughItsTarget() throws Exception {
		long attemptsBefore = counter("recommendations", "attempts");
		this.downstream.failNext("recommendations", 1, 500, 0);
		assertThat(get("/shop/recommendations/SKU-1").statusCode()).isEqualTo(200);
		assertThat(this.downstream.calls("recommendations")).isEqualTo(2);
		assertThat(counter("recommendations", "attempts") - attemptsBefore).isEqualTo(2);
	}

	@Test
	void searchSendsASecondCopyOfAStragglerAndTheFirstAnswerWins() throws Exception {
		// Every second call of the search downstream answers 1s (wall-clock) late; the hedging delay runs on the
		// virtual clock, so the second copy starts when the test advances it, long before that answer.
		this.downstream.stragglers("search", 2, 1000);
		assertThat(get("/shop/search-unhedged/boots").statusCode()).isEqualTo(200);
		assertThat(get("/actuator/retries/search").body())
			.contains("\"hedging\":{\"delay\":\"100ms\",\"adaptive\":true,\"quantile\":0.95,\"started\":0,\"won\":0}");

		CompletableFuture<HttpResponse<String>> results = getAsync("/shop/search/boots");
		awaitCalls("search", 2);
		// Until the instance has seen 100 calls, it hedges after max-delay.
		awaitPendingTask(Duration.ofMillis(100));
		this.time.advance(Duration.ofMillis(100));
		HttpResponse<String> response = results.get(30, TimeUnit.SECONDS);

		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(response.body()).isEqualTo("{\"query\":\"boots\",\"skus\":[\"SKU-1\",\"SKU-4\"]}");
		assertThat(this.downstream.calls("search")).isEqualTo(3);
		assertThat(get("/actuator/retries/search").body()).contains("\"started\":1,\"won\":1}")
			.contains("\"type\":\"HEDGE\",\"attempt\":2").contains("\"type\":\"HEDGE_WON\",\"attempt\":2");
		assertThat(get("/actuator/prometheus").body())
			.containsPattern("retry_hedges_total\\{[^}]*name=\"search\",result=\"won\"} 1.0")
			.containsPattern("retry_hedging_delay_seconds\\{[^}]*name=\"search\"} 0.1");
		// The hedging timer's next pass (due when a third copy would have been) lets go of the call that ended.
		assertThat(this.time.untilNextTask()).isEqualTo(Duration.ofMillis(100));
		this.time.advance(Duration.ofMillis(100));
		assertThat(this.time.untilNextTask()).isNull();
	}

	@Test
	void prometheusScrapesTheRetryMeters() throws Exception {
		this.downstream.failNext("inventory", 1, 503, 0);
		get("/shop/stock/SKU-2");
		String scrape = get("/actuator/prometheus").body();
		assertThat(scrape).containsPattern("retry_calls_total\\{[^}]*kind=\"successful_with_retry\"[^}]*name=\"inventory\"")
			.contains("retry_attempts_total").contains("retry_circuit_state");
	}

	/**
	 * Waits (spinning, bounded by wall-clock time) until the next task on the virtual clock is due in
	 * {@code delay}: the async client's retry after a failed attempt, or the timeout of its attempt in
	 * flight, so that advancing the clock by {@code delay} runs it.
	 */
	private void awaitPendingTask(Duration delay) {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		while (!delay.equals(this.time.untilNextTask()) && System.nanoTime() < deadline) {
			Thread.onSpinWait();
		}
		assertThat(this.time.untilNextTask()).isEqualTo(delay);
	}

	/** Waits (spinning, bounded by wall-clock time) until the downstream service has received {@code calls} calls. */
	private void awaitCalls(String service, int calls) {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		while (this.downstream.calls(service) < calls && System.nanoTime() < deadline) {
			Thread.onSpinWait();
		}
		assertThat(this.downstream.calls(service)).as("calls of %s", service).isEqualTo(calls);
	}

	private long counter(String instance, String field) throws IOException, InterruptedException {
		java.util.regex.Matcher matcher = java.util.regex.Pattern.compile("\"" + field + "\":(\\d+)")
			.matcher(get("/actuator/retries/" + instance).body());
		assertThat(matcher.find()).as("%s of %s", field, instance).isTrue();
		return Long.parseLong(matcher.group(1));
	}

	@TestConfiguration
	static class VirtualTimeConfiguration {

		@Bean
		VirtualTime virtualTime() {
			return new VirtualTime();
		}

	}

}
