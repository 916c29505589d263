package dev.retrykit.sample.chain;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Retries multiply down a chain of services, unless only one layer retries. Two chains of four tiers of the
 * sample's {@code chain} profile, each tier its own process on 127.0.0.1 whose instance {@code chain} tries every
 * call to the next tier 3 times, the leaf answering 503: one with {@code retry.http.propagation.enabled=false},
 * one with the default (on). A request to the top is a four-tier chain, a request to the second tier a
 * three-tier one (that tier, the third, the leaf). The calls reaching the leaf per request: 3^(tiers - 1)
 * without propagation (9 and 27), 3 with it, whatever the depth: the tier above the leaf retries, and every tier
 * above it sees {@code X-Retry-Exhausted} on the answer and does not. Runs after {@code package} (Maven Failsafe);
 * it starts and stops every process it runs.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ChainAmplificationIT {

	/** User requests per measurement: each is checked, and their average reported. */
	private static final int REQUESTS = 5;

	private Chain withoutPropagation;

	private Chain withPropagation;

	@BeforeAll
	void startChains() throws Exception {
		this.withoutPropagation = Chain.start("amplification-off", 4, "--retry.http.propagation.enabled=false");
		this.withPropagation = Chain.start("amplification-on", 4);
		this.withoutPropagation.awaitServing(Duration.ofSeconds(180));
		this.withPropagation.awaitServing(Duration.ofSeconds(180));
	}

	@AfterAll
	void stopChains() {
		if (this.withoutPropagation != null) {
			this.withoutPropagation.close();
		}
		if (this.withPropagation != null) {
			this.withPropagation.close();
		}
	}

	@Test
	void withoutPropagationEveryTierRetriesWhatTheOneBelowRetried() throws Exception {
		assertLeafCallsPerRequest(this.withoutPropagation, 1, "off-3", 9, null);
		assertLeafCallsPerRequest(this.withoutPropagation, 0, "off-4", 27, null);
	}

	@Test
	void withPropagationOnlyTheTierAboveTheLeafRetries() throws Exception {
		assertLeafCallsPerRequest(this.withPropagation, 1, "on-3", 3, "chain");
		assertLeafCallsPerRequest(this.withPropagation, 0, "on-4", 3, "chain");
	}

	/**
	 * Sends {@link #REQUESTS} requests to tier {@code entry}, the leaf failing, and checks that each of them put
	 * {@code expected} calls on the leaf and was answered 502, with {@code X-Retry-Exhausted: <exhausted>} or, for
	 * {@code null}, without that header.
	 */
	private static void assertLeafCallsPerRequest(Chain chain, int entry, String label, long expected,
			@Nullable String exhausted) throws Exception {
		chain.scriptLeaf(503, 0);
		chain.clearRecords();
		for (int i = 0; i < REQUESTS; i++) {
			HttpResponse<String> response = chain.call(entry, label + "-" + i, null);
			assertThat(response.statusCode()).as("the top's answer to %s-%d: %s", label, i, response.body())
				.isEqualTo(502);
			assertThat(response.headers().firstValue("X-Retry-Exhausted"))
				.as("the top's answer to %s-%d marked as retried", label, i).isEqualTo(Optional.ofNullable(exhausted));
		}
		Map<String, Long> perRequest = new TreeMap<>(chain.records(chain.depth() - 1).requests().stream()
			.collect(Collectors.groupingBy(Chain.Event::request, Collectors.counting())));
		long total = perRequest.values().stream().mapToLong(Long::longValue).sum();
		double average = (double) total / REQUESTS;
		StringBuilder tiers = new StringBuilder();
		for (int tier = entry; tier < chain.depth(); tier++) {
			tiers.append(' ').append(chain.records(tier).tier()).append('=').append(chain.records(tier).received());
		}
		System.out.printf("ChainAmplificationIT %s: %d tiers, %.1f calls at the leaf per request (%s); received:%s%n",
				label, chain.depth() - entry, average, perRequest, tiers);
		assertThat(perRequest).as("the requests that reached the leaf (%s)", label).hasSize(REQUESTS);
		assertThat(perRequest.values()).as("the leaf's calls per request (%s), %d tiers", label, chain.depth() - entry)
			.containsOnly(expected);
		assertThat(average).isEqualTo((double) expected);
	}

}
