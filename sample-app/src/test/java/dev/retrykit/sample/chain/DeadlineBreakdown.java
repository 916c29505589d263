package dev.retrykit.sample.chain;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Where the time of the requests of {@link ChainDeadlineIT} went, hop by hop, from the client's and the tiers'
 * clocks (one system clock on one machine): the median and the 99th percentile of each step, in milliseconds. For
 * the report only; it asserts nothing.
 */
final class DeadlineBreakdown {

	private DeadlineBreakdown() {
	}

	/** {@return microseconds since the epoch on the system clock, as the tiers record them} */
	static long nowMicros() {
		return ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now());
	}

	/**
	 * A request as the client saw it.
	 * @param request its id
	 * @param sent when the client sent it, µs since the epoch
	 * @param nanos how long until the answer, measured with {@link System#nanoTime()}
	 * @param received when the answer came, µs since the epoch
	 */
	record Timing(String request, long sent, long nanos, long received) {
	}

	/**
	 * @param clients the requests as the client saw them
	 * @param tiers what each tier recorded, the top first, the leaf last
	 * @return one line: each step's p50 / p99 in milliseconds
	 */
	static String of(List<Timing> clients, List<Chain.Records> tiers) {
		Map<String, Chain.Event> top = byRequest(tiers.get(0).requests());
		Map<String, Chain.Event> middle = byRequest(tiers.get(1).requests());
		Map<String, List<Double>> steps = new LinkedHashMap<>();
		for (Timing client : clients) {
			Chain.Event atTop = top.get(client.request());
			Chain.Event atMiddle = middle.get(client.request());
			if (atTop == null || atMiddle == null) {
				continue;
			}
			double clientDeadline = client.sent() + 1000_000.0;
			add(steps, "client sent -> top's controller", atTop.at() - client.sent());
			add(steps, "top's deadline - client's", atTop.deadline() - clientDeadline);
			add(steps, "middle's deadline - top's", atMiddle.deadline() - atTop.deadline());
			add(steps, "middle answered - its deadline", atMiddle.answered() - atMiddle.deadline());
			add(steps, "top answered - middle answered", atTop.answered() - atMiddle.answered());
			add(steps, "client got it - top answered", client.received() - atTop.answered());
			add(steps, "client got it - client's deadline", client.received() - clientDeadline);
		}
		StringBuilder line = new StringBuilder();
		steps.forEach((step, values) -> {
			double[] sorted = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
			line.append(String.format("%n  %-36s p50 %7.1f ms, p99 %7.1f ms", step, percentile(sorted, 0.5) / 1000,
					percentile(sorted, 0.99) / 1000));
		});
		return line.toString();
	}

	private static Map<String, Chain.Event> byRequest(List<Chain.Event> events) {
		// A request that reached a tier twice (a retried call) is kept with its first arrival.
		return events.stream().collect(Collectors.toMap(Chain.Event::request, Function.identity(), (a, b) -> a));
	}

	private static void add(Map<String, List<Double>> steps, String step, double micros) {
		steps.computeIfAbsent(step, key -> new ArrayList<>()).add(micros);
	}

	private static double percentile(double[] sorted, double quantile) {
		return (sorted.length == 0) ? Double.NaN
				: sorted[Math.max(0, (int) Math.ceil(quantile * sorted.length) - 1)];
	}

}
