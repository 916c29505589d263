package dev.retrykit.sample.cluster;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

import com.jayway.jsonpath.JsonPath;
import dev.retrykit.sample.SampleApplication;
import dev.retrykit.testing.redis.RedisTestServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample's {@code cluster-redis} profile as the README runs it: two replicas, each a whole application on a
 * random port, sharing the payments contexts, the inventory budget and the pricing circuit through a real
 * {@code redis-server} on 127.0.0.1, called over HTTP as curl would.
 */
class ClusterRedisProfileTests {

	private static RedisTestServer redis;

	private static ConfigurableApplicationContext first;

	private static ConfigurableApplicationContext second;

	private final HttpClient http = HttpClient.newHttpClient();

	@BeforeAll
	static void startReplicas() {
		redis = new RedisTestServer();
		first = replica();
		second = replica();
	}

	@AfterAll
	static void stopReplicas() {
		second.close();
		first.close();
		redis.close();
	}

	private static ConfigurableApplicationContext replica() {
		return new SpringApplicationBuilder(SampleApplication.class).profiles("cluster-redis")
			.run("--server.port=0", "--spring.data.redis.port=" + redis.port(), "--retry.cluster.timeout=5s");
	}

	@Test
	void aPaymentFailingOnOneReplicaContinuesItsCountOnTheOther() throws Exception {
		post(first, "/downstream/script/payments/down", null);
		post(second, "/downstream/script/payments/down", null);
		assertThat(post(first, "/shop/orders/R-1/pay", null).statusCode()).isGreaterThanOrEqualTo(500);
		assertThat(post(second, "/shop/orders/R-1/pay", null).statusCode()).isGreaterThanOrEqualTo(500);
		String payments = get(first, "/actuator/retries/payments").body();
		List<Integer> counts = JsonPath.read(payments, "$.contextCache.entries[*].retryCount");
		assertThat(counts).containsExactly(2);
	}

	@Test
	void aCircuitOpenedOnOneReplicaIsOpenOnTheOtherAndTheEndpointNamesRedis() throws Exception {
		HttpResponse<String> opened = post(first, "/actuator/retries/pricing", "{\"action\":\"open-circuit\"}");
		assertThat(opened.statusCode()).isLessThan(300);
		long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
		while (!"OPEN".equals(JsonPath.read(get(second, "/actuator/retries/pricing").body(), "$.circuit.state"))) {
			assertThat(System.nanoTime() - deadline).as("the circuit opened on the other replica").isNegative();
			LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
		}
		String retries = get(second, "/actuator/retries").body();
		assertThat((String) JsonPath.read(retries, "$.cluster.engine")).isEqualTo("redis");
		assertThat((String) JsonPath.read(retries, "$.instances.inventory.budget.scope")).isEqualTo("cluster");
		assertThat((String) JsonPath.read(retries, "$.instances.inventory.budget.kind")).isEqualTo("ratio");
		// Redis's reach is in retrykit's own contributor's details, not a health component of its own that could take
		// the application out of service (management.health.redis.enabled=false in the profile).
		String health = get(second, "/actuator/health").body();
		assertThat((String) JsonPath.read(health, "$.components.retries.details.cluster.engine")).isEqualTo("redis");
		assertThat((Boolean) JsonPath.read(health, "$.components.retries.details.cluster.reachable")).isTrue();
		assertThat((java.util.Map<String, Object>) JsonPath.read(health, "$.components")).doesNotContainKey("redis");
	}

	private HttpResponse<String> get(ConfigurableApplicationContext replica, String path)
			throws IOException, InterruptedException {
		return this.http.send(request(replica, path).GET().build(), HttpResponse.BodyHandlers.ofString());
	}

	private HttpResponse<String> post(ConfigurableApplicationContext replica, String path, String json)
			throws IOException, InterruptedException {
		HttpRequest.Builder request = request(replica, path);
		if (json != null) {
			request.header("Content-Type", "application/json");
		}
		return this.http.send(request.POST((json != null) ? HttpRequest.BodyPublishers.ofString(json)
				: HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
	}

	private static HttpRequest.Builder request(ConfigurableApplicationContext replica, String path) {
		String port = replica.getEnvironment().getProperty("local.server.port");
		return HttpRequest.newBuilder(URI.create("http://localhost:" + port + path)).timeout(Duration.ofSeconds(30));
	}

}
