package dev.retrykit.sample;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.retrykit.VirtualTime;
import dev.retrykit.sample.downstream.FlakyDownstream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Starts the sample on a random port, scripts the downstream, drives traffic through every client and
 * checks what users and operators see over real HTTP. Backoff, circuit timeouts and background retries
 * run in virtual time, so nothing waits.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = "spring.test.metrics.export=true")
class SampleApplicationTest {

	private final HttpClient http = HttpClient.newHttpClient();

	@LocalServerPort
	int port;

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
		long failedBefore = counter("inventory", "failedWithoutRetry");
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
		assertThat(counter("inventory", "failedWithoutRetry") - failedBefore).isEqualTo(1);
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
		this.downstream.failNext("shipping", 1, 502, 0);
		CompletableFuture<HttpResponse<String>> quote = this.http.sendAsync(request("/shop/shipping/O-1").GET().build(),
				HttpResponse.BodyHandlers.ofString());
		awaitPendingRetry(Duration.ofMillis(100));
		this.time.advance(Duration.ofMillis(100));
		HttpResponse<String> response = quote.get(30, TimeUnit.SECONDS);
		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(response.body()).contains("\"days\":2");
		assertThat(counter("shipping", "successfulWithRetry")).isEqualTo(1);
	}

	@Test
	void auditEventsAreRetriedInTheBackgroundUntilTheDownstreamIsBack() throws Exception {
		this.downstream.down("audit");
		HttpResponse<String> accepted = post("/shop/orders/O-7/audit");
		assertThat(accepted.statusCode()).isEqualTo(202);
		assertThat(get("/actuator/retries/audit").body()).contains("\"pending\":1");

		this.downstream.up("audit");
		this.time.advance(Duration.ofSeconds(1));
		assertThat(this.downstream.calls("audit")).isEqualTo(2);
		assertThat(get("/actuator/retries/audit").body()).contains("\"pending\":0");
	}

	@Test
	void paymentsRethrowAndTheNextRequestContinuesTheCount() throws Exception {
		this.downstream.failNext("payments", 1, 503, 0);
		assertThat(post("/shop/orders/O-9/pay").statusCode()).isEqualTo(502);
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
	void prometheusScrapesTheRetryMeters() throws Exception {
		this.downstream.failNext("inventory", 1, 503, 0);
		get("/shop/stock/SKU-2");
		String scrape = get("/actuator/prometheus").body();
		assertThat(scrape).containsPattern("retry_calls_total\\{[^}]*kind=\"successful_with_retry\"[^}]*name=\"inventory\"")
			.contains("retry_attempts_total").contains("retry_circuit_state");
	}

	/**
	 * Waits (spinning, bounded by wall-clock time) until the async client's first attempt has failed
	 * and its retry is scheduled on the virtual clock, so that advancing the clock runs it.
	 */
	private void awaitPendingRetry(Duration delay) {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		while (!delay.equals(this.time.untilNextTask()) && System.nanoTime() < deadline) {
			Thread.onSpinWait();
		}
		assertThat(this.time.untilNextTask()).isEqualTo(delay);
	}

	private long counter(String instance, String field) throws IOException, InterruptedException {
		java.util.regex.Matcher matcher = java.util.regex.Pattern.compile("\"" + field + "\":(\\d+)")
			.matcher(get("/actuator/retries/" + instance).body());
		assertThat(matcher.find()).as("%s of %s", field, instance).isTrue();
		return Long.parseLong(matcher.group(1));
	}

	private HttpResponse<String> get(String path) throws IOException, InterruptedException {
		return this.http.send(request(path).GET().build(), HttpResponse.BodyHandlers.ofString());
	}

	private HttpResponse<String> post(String path) throws IOException, InterruptedException {
		return this.http.send(request(path).POST(HttpRequest.BodyPublishers.noBody()).build(),
				HttpResponse.BodyHandlers.ofString());
	}

	private HttpRequest.Builder request(String path) {
		return HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path)).timeout(Duration.ofSeconds(30));
	}

	@TestConfiguration
	static class VirtualTimeConfiguration {

		@Bean
		VirtualTime virtualTime() {
			return new VirtualTime();
		}

	}

}
