package dev.retrykit.sample.chain;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A deadline travels with the request down a chain of three tiers of the sample's {@code chain} profile (top,
 * middle, leaf; each its own process on 127.0.0.1, each tier trying every call 3 times with 10 ms between), once
 * with tiers that call the next one with a blocking {@code RestClient}, once with {@code WebClient}: user
 * requests carry {@code X-Request-Timeout: 1000}, and the leaf answers 503 after {@value #LEAF_DELAY_MILLIS} ms,
 * so that the middle's third attempt would end past the deadline. Each tier records when every attempt of its
 * calls starts, with the deadline it runs under. No tier starts an attempt after the request's deadline (the one
 * the top derived from the header), and the top answers within the deadline + 50 ms at the 99th percentile of
 * {@value #REQUESTS} requests, timed by the client. Runs after {@code package} (Maven Failsafe); it starts and stops
 * every process it runs.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ChainDeadlineIT {

	private static final int TIMEOUT_MILLIS = 1000;

	private static final long LEAF_DELAY_MILLIS = 400;

	private static final int REQUESTS = 200;

	/** Requests in flight at once: the run takes about REQUESTS / CONCURRENCY seconds. */
	private static final int CONCURRENCY = 8;

	/** Requests before the measured ones, not counted: the tiers' first requests run cold code. */
	private static final int WARM_UP = 16;

	/** Tiers that call the next one with a blocking RestClient. */
	private Chain restClients;

	/** Tiers that call the next one with WebClient. */
	private Chain webClients;

	@BeforeAll
	void startChains() throws Exception {
		this.restClients = Chain.start("deadline-rest-client", 3, "--sample.chain.client=rest-client");
		this.webClients = Chain.start("deadline-web-client", 3, "--sample.chain.client=web-client");
		for (Chain chain : List.of(this.restClients, this.webClients)) {
			chain.awaitServing(Duration.ofSeconds(180));
			chain.scriptLeaf(503, LEAF_DELAY_MILLIS);
		}
	}

	@AfterAll
	void stopChains() {
		for (Chain chain : Arrays.asList(this.restClients, this.webClients)) {
			if (chain != null) {
				chain.close();
			}
		}
	}

	@Test
	void restClientTiersStartNoAttemptAfterTheDeadlineAndTheTopAnswersInTime() throws Exception {
		assertDeadlineKept(this.restClients, "RestClient");
	}

	@Test
	void webClientTiersStartNoAttemptAfterTheDeadlineAndTheTopAnswersInTime() throws Exception {
		assertDeadlineKept(this.webClients, "WebClient");
	}

	private static void assertDeadlineKept(Chain chain, String label) throws Exception {
		send(chain, "warm-up", WARM_UP);
		chain.clearRecords();
		List<DeadlineBreakdown.Timing> timings = send(chain, "deadline", REQUESTS);
		long[] latencies = timings.stream().mapToLong(DeadlineBreakdown.Timing::nanos).toArray();

		Map<String, Chain.Event> top = chain.records(0).requests().stream()
			.collect(Collectors.toMap(Chain.Event::request, Function.identity()));
		assertThat(top).as("the requests the top received").hasSize(REQUESTS);
		for (Chain.Event request : top.values()) {
			assertThat(request.deadline()).as("the top runs %s under a deadline", request.request()).isPositive();
			assertThat(request.deadline() - request.at()).as("%s's time left as it reached the top's controller, µs",
					request.request()).isBetween((TIMEOUT_MILLIS - 50) * 1000L, TIMEOUT_MILLIS * 1000L);
		}
		for (int tier = 1; tier < chain.depth(); tier++) {
			Chain.Records records = chain.records(tier);
			for (Chain.Event received : records.requests()) {
				assertThat(received.deadline()).as("%s runs %s under the deadline sent along", records.tier(), received)
					.isPositive();
			}
		}
		List<String> late = new ArrayList<>();
		long closest = Long.MAX_VALUE;
		Map<Integer, Long> middleAttempts = new TreeMap<>();
		for (int tier = 0; tier < chain.depth() - 1; tier++) {
			Chain.Records records = chain.records(tier);
			for (Chain.Event attempt : records.attempts()) {
				Chain.Event request = top.get(attempt.request());
				assertThat(request).as("the request of %s's attempt %s", records.tier(), attempt).isNotNull();
				closest = Math.min(closest, request.deadline() - attempt.at());
				if (attempt.deadline() < 0 || attempt.at() > attempt.deadline() || attempt.at() > request.deadline()) {
					late.add(records.tier() + " " + attempt + ", " + (attempt.at() - request.deadline())
							+ " µs after the top's deadline");
				}
			}
			if (tier == chain.depth() - 2) {
				records.attempts().stream()
					.collect(Collectors.groupingBy(Chain.Event::request, Collectors.counting()))
					.values().forEach(count -> middleAttempts.merge(count.intValue(), 1L, Long::sum));
			}
		}
		Arrays.sort(latencies);
		long p50 = latencies[percentileIndex(0.50)];
		long p99 = latencies[percentileIndex(0.99)];
		System.out.printf("ChainDeadlineIT, %s: %d requests with X-Request-Timeout: %d, leaf 503 after %d ms, %d in flight: "
				+ "the top answered in p50 %.1f ms, p99 %.1f ms, max %.1f ms; the middle's attempts per request %s; "
				+ "the latest attempt started %.1f ms before its request's deadline; attempts started after the deadline: %d%n",
				label, REQUESTS, TIMEOUT_MILLIS, LEAF_DELAY_MILLIS, CONCURRENCY, p50 / 1e6, p99 / 1e6,
				latencies[latencies.length - 1] / 1e6, middleAttempts, closest / 1e3, late.size());
		List<Chain.Records> tiers = new ArrayList<>();
		for (int tier = 0; tier < chain.depth(); tier++) {
			tiers.add(chain.records(tier));
		}
		System.out.println("ChainDeadlineIT, " + label + ", where the time went:" + DeadlineBreakdown.of(timings, tiers));
		assertThat(late).as("attempts started after the request's deadline").isEmpty();
		assertThat(p99).as("the top's p99 answer time, ns").isLessThanOrEqualTo(
				TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MILLIS + 50));
	}

	private static int percentileIndex(double quantile) {
		return (int) Math.ceil(quantile * REQUESTS) - 1;
	}

	/**
	 * Sends {@code count} requests to the top, {@value #CONCURRENCY} at a time.
	 * @return each request as the client saw it
	 */
	private static List<DeadlineBreakdown.Timing> send(Chain chain, String label, int count) throws Exception {
		ExecutorService clients = Executors.newFixedThreadPool(CONCURRENCY);
		try {
			List<Future<DeadlineBreakdown.Timing>> answers = new ArrayList<>();
			for (int i = 0; i < count; i++) {
				String request = label + "-" + i;
				answers.add(clients.submit(() -> {
					long sent = DeadlineBreakdown.nowMicros();
					long start = System.nanoTime();
					HttpResponse<String> response = chain.call(0, request, TIMEOUT_MILLIS);
					long took = System.nanoTime() - start;
					long received = DeadlineBreakdown.nowMicros();
					assertThat(response.statusCode()).as("the top's answer to %s: %s", request, response.body())
						.isIn(502, 504);
					return new DeadlineBreakdown.Timing(request, sent, took, received);
				}));
			}
			List<DeadlineBreakdown.Timing> timings = new ArrayList<>();
			for (Future<DeadlineBreakdown.Timing> answer : answers) {
				timings.add(answer.get(60, TimeUnit.SECONDS));
			}
			return timings;
		}
		finally {
			clients.shutdownNow();
		}
	}

}
