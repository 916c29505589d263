package dev.retrykit.sample.chain;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
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
 * with tiers that call the next one with a blocking {@code RestClient} (on Apache HttpClient 5, 50 pooled
 * connections per route), once with {@code WebClient}: user
 * requests carry {@code X-Request-Timeout: 1000}, and the leaf answers 503 after {@value #LEAF_DELAY_MILLIS} ms,
 * so that the middle's third attempt would end past the deadline. Each tier records when every attempt of its
 * calls starts, with the deadline it runs under. Every tier runs under the time left that its caller sent along, no
 * tier starts an attempt after its deadline, and the top answers within the deadline + 50 ms at the 99th
 * percentile of {@value #REQUESTS} requests, timed by the client (from before it sends the request, so the time it
 * takes to reach the top counts). A tier's deadline is later than the top's by the time the request took to reach
 * it, which a relative timeout cannot count: the closest an attempt came to the top's deadline is reported. Runs
 * after {@code package} (Maven Failsafe); it starts and stops every process it runs.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ChainDeadlineIT {

	private static final int TIMEOUT_MILLIS = 1000;

	static final long LEAF_DELAY_MILLIS = 400;

	private static final int REQUESTS = 200;

	/**
	 * One request every 125 ms, whether the earlier ones were answered or not (8 a second, each about 1 s long:
	 * about 8 in flight): the run takes about 25 s, and the requests' deadlines are spread evenly, not in waves.
	 */
	private static final long INTERVAL_MILLIS = 125;

	/** Requests before the measured ones, not counted: the tiers' first requests run cold code. */
	private static final int WARM_UP = 8;

	/** See where it is used. */
	private static final long PROPAGATION_SLACK_MILLIS = 20;

	/** Tiers that call the next one with a blocking RestClient. */
	private Chain restClients;

	/** Tiers that call the next one with WebClient. */
	private Chain webClients;

	@BeforeAll
	void startChains() throws Exception {
		// RestClient on Apache HttpClient 5 with the profile's pool of 50 connections per route
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

	static void assertDeadlineKept(Chain chain, String label) throws Exception {
		send(chain, "warm-up", WARM_UP);
		chain.clearRecords();
		List<DeadlineBreakdown.Timing> timings = send(chain, "deadline", REQUESTS);
		long[] latencies = timings.stream().mapToLong(DeadlineBreakdown.Timing::nanos).toArray();

		List<Chain.Records> tiers = new ArrayList<>();
		for (int tier = 0; tier < chain.depth(); tier++) {
			tiers.add(chain.records(tier));
		}
		Map<String, Chain.Event> top = tiers.get(0).requests().stream()
			.collect(Collectors.toMap(Chain.Event::request, Function.identity()));
		assertThat(top).as("the requests the top received").hasSize(REQUESTS);
		for (Chain.Event request : top.values()) {
			assertThat(request.deadline() - request.at()).as("%s's time left as it reached the top's controller, µs",
					request.request()).isBetween(TIMEOUT_MILLIS * 1000L / 2, TIMEOUT_MILLIS * 1000L);
		}
		// Each tier below runs under the time left that its caller sent along: at most the caller's deadline plus
		// the time the request took to reach it, which a relative timeout cannot count. The slack covers the time
		// between the client computing the header and this recorder seeing the attempt (a few ms under load); a
		// tier sent the whole timeout again, not the time left, would be off by up to 1000 ms.
		List<String> stretched = new ArrayList<>();
		for (int tier = 1; tier < chain.depth(); tier++) {
			Map<String, Chain.Event> sent = tiers.get(tier - 1).attempts().stream()
				.collect(Collectors.toMap(attempt -> attempt.request() + "#" + attempt.attempt(), Function.identity()));
			for (Chain.Event received : tiers.get(tier).requests()) {
				if (!top.containsKey(received.request())) {
					continue; // a warm-up request the tier answered after the records were cleared
				}
				Chain.Event attempt = sent.get(received.request() + "#" + received.attempt());
				assertThat(attempt).as("%s's attempt that %s received", tiers.get(tier - 1).tier(), received).isNotNull();
				if (received.deadline() < 0 || received.deadline() - attempt.deadline() > received.at() - attempt.at()
						+ TimeUnit.MILLISECONDS.toMicros(PROPAGATION_SLACK_MILLIS)) {
					stretched.add(tiers.get(tier).tier() + " " + received + " from " + attempt);
				}
			}
		}
		// No tier starts an attempt after its deadline. A tier's deadline can be later than the top's by the time the
		// request took to reach it: reported, as the closest any attempt came to the top's deadline.
		List<String> late = new ArrayList<>();
		long closest = Long.MAX_VALUE;
		for (int tier = 0; tier < chain.depth() - 1; tier++) {
			for (Chain.Event attempt : tiers.get(tier).attempts()) {
				if (!top.containsKey(attempt.request())) {
					continue;
				}
				closest = Math.min(closest, top.get(attempt.request()).deadline() - attempt.at());
				if (attempt.deadline() < 0 || attempt.at() > attempt.deadline()) {
					late.add(tiers.get(tier).tier() + " " + attempt);
				}
			}
		}
		Map<Long, Long> middleAttempts = new TreeMap<>(tiers.get(chain.depth() - 2).attempts().stream()
			.filter(attempt -> top.containsKey(attempt.request()))
			.collect(Collectors.groupingBy(Chain.Event::request, Collectors.counting())).values().stream()
			.collect(Collectors.groupingBy(Function.identity(), Collectors.counting())));
		Arrays.sort(latencies);
		long p50 = latencies[percentileIndex(0.50)];
		long p99 = latencies[percentileIndex(0.99)];
		String summary = String.format("ChainDeadlineIT, %s: %d requests with X-Request-Timeout: %d, "
				+ "leaf 503 after %d ms, one every %d ms: the top answered in p50 %.1f ms, p99 %.1f ms, max %.1f ms; "
				+ "requests by the middle's attempts %s; "
				+ "attempts started after their tier's deadline: %d; the latest attempt started %.1f ms before the top's "
				+ "deadline; where the time went:%s", label, REQUESTS, TIMEOUT_MILLIS, LEAF_DELAY_MILLIS, INTERVAL_MILLIS,
				p50 / 1e6, p99 / 1e6, latencies[latencies.length - 1] / 1e6, middleAttempts, late.size(), closest / 1e3,
				DeadlineBreakdown.of(timings, tiers));
		System.out.println(summary);
		assertThat(stretched).as("requests that ran under a later deadline than their caller sent along").isEmpty();
		assertThat(late).as("attempts started after their tier's deadline").isEmpty();
		assertThat(p99).as("the top's p99 answer time, ns (%s)", summary).isLessThanOrEqualTo(
				TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MILLIS + 50));
	}

	private static int percentileIndex(double quantile) {
		return (int) Math.ceil(quantile * REQUESTS) - 1;
	}

	/**
	 * Sends {@code count} requests to the top, one every {@value #INTERVAL_MILLIS} ms.
	 * @return each request as the client saw it
	 */
	private static List<DeadlineBreakdown.Timing> send(Chain chain, String label, int count) throws Exception {
		// Threads enough that every request leaves on time while about 8 wait for their answers.
		ScheduledExecutorService clients = Executors.newScheduledThreadPool(24);
		try {
			List<Future<DeadlineBreakdown.Timing>> answers = new ArrayList<>();
			for (int i = 0; i < count; i++) {
				String request = label + "-" + i;
				answers.add(clients.schedule(() -> {
					long sent = DeadlineBreakdown.nowMicros();
					long start = System.nanoTime();
					HttpResponse<String> response = chain.call(0, request, TIMEOUT_MILLIS);
					long took = System.nanoTime() - start;
					long received = DeadlineBreakdown.nowMicros();
					assertThat(response.statusCode()).as("the top's answer to %s: %s", request, response.body())
						.isIn(502, 504);
					return new DeadlineBreakdown.Timing(request, sent, took, received);
				}, i * INTERVAL_MILLIS, TimeUnit.MILLISECONDS));
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
