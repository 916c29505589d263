package dev.retrykit.sample.chain;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.jayway.jsonpath.JsonPath;
import dev.retrykit.sample.cluster.ReplicaProcess;
import org.jspecify.annotations.Nullable;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A chain of tiers of the sample's {@code chain} profile, each its own process from the built jar on 127.0.0.1,
 * each calling the next: tier 0 is the top, the last one the leaf. All start at once; logs under
 * {@code target/chain}.
 */
final class Chain implements AutoCloseable {

	private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

	/** The tiers, the top first, the leaf last. */
	private final List<ReplicaProcess> tiers;

	private Chain(List<ReplicaProcess> tiers) {
		this.tiers = tiers;
	}

	/** {@return the sample's executable jar, built by {@code package}} */
	static Path jar() {
		Path jar = Path.of(System.getProperty("sample.jar", "target/sample-app-0.1.0-SNAPSHOT.jar"));
		assertThat(jar).as("the sample's executable jar (built by package)").exists();
		return jar;
	}

	/**
	 * Starts the tiers, the leaf first (each needs the port of the one below it), without waiting for them.
	 * @param name the chain's name, for the tiers' log files
	 * @param depth how many tiers, the leaf included
	 * @param arguments more application arguments of every tier
	 * @return the chain, not yet serving
	 */
	static Chain start(String name, int depth, String... arguments) throws IOException {
		List<ReplicaProcess> started = new ArrayList<>();
		try {
			String next = null;
			for (int tier = depth - 1; tier >= 0; tier--) {
				List<String> tierArguments = new ArrayList<>(List.of("--spring.profiles.active=chain",
						"--sample.chain.tier=" + tierName(tier, depth), "--logging.level.root=warn",
						"--spring.jmx.enabled=false"));
				if (next != null) {
					tierArguments.add("--sample.chain.next=" + next);
				}
				tierArguments.addAll(List.of(arguments));
				ReplicaProcess process = ReplicaProcess.start(jar(), Path.of("target", "chain"),
						name + "-" + tierName(tier, depth), tierArguments.toArray(String[]::new));
				started.add(0, process);
				next = "http://127.0.0.1:" + process.port;
			}
			return new Chain(List.copyOf(started));
		}
		catch (IOException | RuntimeException ex) {
			for (ReplicaProcess process : started) {
				closeQuietly(process);
			}
			throw ex;
		}
	}

	private static String tierName(int tier, int depth) {
		return (tier == depth - 1) ? "leaf" : "tier" + (tier + 1);
	}

	/** Waits until every tier serves. */
	void awaitServing(Duration timeout) {
		for (ReplicaProcess tier : this.tiers) {
			ReplicaProcess.await(tier + " serves", timeout, () -> {
				if (!tier.isAlive()) {
					throw new AssertionError(tier + " has exited; see " + tier.log);
				}
				return tier.bodyOrNull("/chain/records") != null;
			});
		}
	}

	/** {@return how many tiers, the leaf included} */
	int depth() {
		return this.tiers.size();
	}

	/** {@return the tier {@code index} (0: the top)} */
	ReplicaProcess tier(int index) {
		return this.tiers.get(index);
	}

	/** {@return the leaf} */
	ReplicaProcess leaf() {
		return this.tiers.get(this.tiers.size() - 1);
	}

	/**
	 * Sends one user request to a tier's {@code /chain/call}.
	 * @param entry the tier that gets it (0: the top)
	 * @param request the request's id, passed on by every tier
	 * @param timeoutMillis the request's {@code X-Request-Timeout}, or {@code null} for none
	 * @return the answer
	 */
	HttpResponse<String> call(int entry, String request, @Nullable Integer timeoutMillis)
			throws IOException, InterruptedException {
		HttpRequest.Builder builder = HttpRequest
			.newBuilder(URI.create("http://127.0.0.1:" + tier(entry).port + "/chain/call"))
			.timeout(Duration.ofSeconds(30))
			.header("X-Chain-Request", request);
		if (timeoutMillis != null) {
			builder.header("X-Request-Timeout", Integer.toString(timeoutMillis));
		}
		return HTTP.send(builder.GET().build(), HttpResponse.BodyHandlers.ofString());
	}

	/** Scripts the leaf: what it answers, after how long. */
	void scriptLeaf(int status, long delayMillis) throws IOException, InterruptedException {
		HttpResponse<String> response = HTTP.send(HttpRequest
			.newBuilder(URI.create("http://127.0.0.1:" + leaf().port + "/chain/leaf?status=" + status + "&delayMillis="
					+ delayMillis))
			.POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).as("scripting the leaf: %s", response.body()).isEqualTo(200);
	}

	/** Forgets what every tier recorded. */
	void clearRecords() throws IOException, InterruptedException {
		for (ReplicaProcess tier : this.tiers) {
			HttpResponse<Void> response = HTTP.send(HttpRequest
				.newBuilder(URI.create("http://127.0.0.1:" + tier.port + "/chain/records")).DELETE().build(),
					HttpResponse.BodyHandlers.discarding());
			assertThat(response.statusCode()).as("clearing %s's records", tier).isEqualTo(204);
		}
	}

	/** {@return what tier {@code index} recorded} */
	Records records(int index) throws IOException, InterruptedException {
		String body = tier(index).get("/chain/records").body();
		Number received = JsonPath.read(body, "$.received");
		List<Map<String, Object>> requests = JsonPath.read(body, "$.requests");
		List<Map<String, Object>> attempts = JsonPath.read(body, "$.attempts");
		return new Records(JsonPath.read(body, "$.tier"), received.longValue(),
				requests.stream().map(Chain::event).toList(), attempts.stream().map(Chain::event).toList());
	}

	private static Event event(Map<String, Object> json) {
		Object answered = json.get("answered");
		return new Event(String.valueOf(json.get("request")), ((Number) json.get("attempt")).intValue(),
				((Number) json.get("at")).longValue(), ((Number) json.get("deadline")).longValue(),
				(answered instanceof Number number) ? number.longValue() : -1);
	}

	@Override
	public void close() {
		for (ReplicaProcess tier : this.tiers) {
			closeQuietly(tier);
		}
	}

	private static void closeQuietly(ReplicaProcess process) {
		try {
			process.close();
		}
		catch (Exception ex) {
			// The others are stopped all the same.
		}
	}

	@Override
	public String toString() {
		return this.tiers.toString();
	}

	/**
	 * A request a tier received, or an attempt of its call to the next tier.
	 * @param request the user request's id
	 * @param attempt the attempt's number
	 * @param at when, in microseconds since the epoch
	 * @param deadline the deadline it ran under, in microseconds since the epoch, -1 for none
	 * @param answered when the tier answered the request, in microseconds since the epoch; -1 for an attempt
	 */
	record Event(String request, int attempt, long at, long deadline, long answered) {
	}

	/**
	 * @param tier the tier's name
	 * @param received the requests it received since the last clear
	 * @param requests those requests, as they were answered
	 * @param attempts the attempts of its calls to the next tier
	 */
	record Records(String tier, long received, List<Event> requests, List<Event> attempts) {
	}

}
