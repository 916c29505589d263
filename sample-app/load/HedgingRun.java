import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Drives the running sample's search with and without hedging and prints what each took, as seen by a
 * client: {@code java sample-app/load/HedgingRun.java [base-url] [requests] [clients]} (defaults
 * {@code http://localhost:8080}, 2000, 2). Each client sends {@code requests / clients} requests to
 * {@code /shop/search/{q}} (instance {@code search}, hedged) and as many to {@code /shop/search-unhedged/{q}}
 * (instance {@code search-unhedged}), one after the other and alternating, so that both see the same
 * machine and the same stragglers; a warm-up of a quarter as many goes first and is not counted (it also
 * gives the adaptive delay its samples). Then it reads the calls, attempts and hedges of both instances
 * from {@code /actuator/retries/{name}}, counted during the measured requests only. First it sets the
 * downstream's stragglers: one call in {@code -Devery} (50) answers {@code -Dmillis} (200) late.
 *
 * <p>With {@code -Dshift=<ms>}, the downstream turns slow after the warm-up: every call answers that late
 * during the measured requests, while the adaptive delay still holds what the warm-up taught it. Every
 * call would then hedge; {@code max-extra-load} caps the copies, and the run prints the copies the cap
 * refused ({@code retry_hedges_total{result="refused"}}).
 */
public class HedgingRun {

	private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	private static final String[] INSTANCES = { "search", "search-unhedged" };

	private static final String[] PATHS = { "/shop/search/", "/shop/search-unhedged/" };

	private static final String[] FIELDS = { "successfulWithoutRetry", "successfulWithRetry", "failedWithoutRetry",
			"failedWithRetry", "attempts", "started", "won" };

	public static void main(String[] args) throws Exception {
		String base = (args.length > 0) ? args[0] : "http://localhost:8080";
		int requests = (args.length > 1) ? Integer.parseInt(args[1]) : 2000;
		int clients = (args.length > 2) ? Integer.parseInt(args[2]) : 2;
		System.out.println("stragglers: " + get(base, "/downstream/script/search/stragglers?every="
				+ System.getProperty("every", "50") + "&millis=" + System.getProperty("millis", "200"), "POST"));
		run(base, Math.max(clients, requests / 4), clients);
		String shift = System.getProperty("shift");
		if (shift != null) {
			System.out.println("shift: " + get(base, "/downstream/script/search/stragglers?every=1&millis=" + shift, "POST"));
		}
		long refusedBefore = refused(base);
		long[][] before = counters(base);
		long started = System.nanoTime();
		long[][] latencies = run(base, requests, clients);
		double seconds = (System.nanoTime() - started) / 1e9;
		long[][] after = counters(base);
		System.out.printf(Locale.ROOT, "%d requests per instance, %d clients, %.1f s; %s, %d cores%n", requests, clients,
				seconds, System.getProperty("java.vm.name") + " " + System.getProperty("java.version"),
				Runtime.getRuntime().availableProcessors());
		for (int i = 0; i < INSTANCES.length; i++) {
			long[] sorted = latencies[i];
			Arrays.sort(sorted);
			long calls = 0;
			StringBuilder counted = new StringBuilder();
			for (int f = 0; f < FIELDS.length; f++) {
				long delta = after[i][f] - before[i][f];
				if (f < 4) {
					calls += delta;
				}
				counted.append(' ').append(FIELDS[f]).append('=').append(delta);
			}
			long attempts = after[i][4] - before[i][4];
			System.out.printf(Locale.ROOT, "%-16s p50 %6.2f ms  p90 %6.2f ms  p99 %6.2f ms  p99.9 %6.2f ms  max %6.2f ms"
					+ "  extra calls %.1f%%  (%s)%n", INSTANCES[i], millis(sorted, 0.50), millis(sorted, 0.90),
					millis(sorted, 0.99), millis(sorted, 0.999), sorted[sorted.length - 1] / 1e6,
					100.0 * (attempts - calls) / Math.max(1, calls), counted.toString().trim());
		}
		System.out.println("copies refused by max-extra-load: " + (refused(base) - refusedBefore));
		System.out.println("hedging delay now: "
				+ field(get(base, "/actuator/retries/search", "GET"), "hedging", "\\{\"delay\":\"([^\"]*)\""));
	}

	/** @return the latencies in nanoseconds, per instance, of {@code requests} requests to each */
	private static long[][] run(String base, int requests, int clients) throws Exception {
		ExecutorService pool = Executors.newFixedThreadPool(clients);
		try {
			List<Future<long[][]>> results = new ArrayList<>();
			for (int c = 0; c < clients; c++) {
				int share = requests / clients + ((c < requests % clients) ? 1 : 0);
				int client = c;
				results.add(pool.submit(() -> client(base, share, client)));
			}
			long[][] all = new long[INSTANCES.length][requests];
			int[] filled = new int[INSTANCES.length];
			for (Future<long[][]> result : results) {
				long[][] part = result.get();
				for (int i = 0; i < INSTANCES.length; i++) {
					System.arraycopy(part[i], 0, all[i], filled[i], part[i].length);
					filled[i] += part[i].length;
				}
			}
			return all;
		}
		finally {
			pool.shutdown();
		}
	}

	private static long[][] client(String base, int requests, int client) throws IOException, InterruptedException {
		long[][] latencies = new long[INSTANCES.length][requests];
		for (int r = 0; r < requests; r++) {
			for (int i = 0; i < INSTANCES.length; i++) {
				// Alternate which instance goes first, so neither always follows the other's straggler.
				int instance = (r % 2 == 0) ? i : INSTANCES.length - 1 - i;
				long start = System.nanoTime();
				String body = get(base, PATHS[instance] + "q" + client + "-" + r, "GET");
				latencies[instance][r] = System.nanoTime() - start;
				if (!body.contains("\"skus\"")) {
					throw new IllegalStateException("Unexpected answer of " + PATHS[instance] + ": " + body);
				}
			}
		}
		return latencies;
	}

	private static long[][] counters(String base) throws IOException, InterruptedException {
		long[][] counters = new long[INSTANCES.length][FIELDS.length];
		for (int i = 0; i < INSTANCES.length; i++) {
			String body = get(base, "/actuator/retries/" + INSTANCES[i], "GET");
			for (int f = 0; f < FIELDS.length; f++) {
				String value = field(body, FIELDS[f], "(\\d+)");
				counters[i][f] = (value != null) ? Long.parseLong(value) : 0;
			}
		}
		return counters;
	}

	/** @return the search instance's copies refused so far (the cap, or throttling), as Prometheus shows them */
	private static long refused(String base) throws IOException, InterruptedException {
		Matcher matcher = Pattern.compile("retry_hedges_total\\{[^}]*name=\"search\"[^}]*result=\"refused\"[^}]*\\} ([0-9.E]+)")
			.matcher(get(base, "/actuator/prometheus", "GET"));
		return matcher.find() ? (long) Double.parseDouble(matcher.group(1)) : -1;
	}

	private static String field(String json, String name, String value) {
		Matcher matcher = Pattern.compile("\"" + name + "\":" + value).matcher(json);
		return matcher.find() ? matcher.group(1) : null;
	}

	private static double millis(long[] sorted, double quantile) {
		int index = (int) Math.ceil(quantile * sorted.length) - 1;
		return sorted[Math.max(0, Math.min(sorted.length - 1, index))] / 1e6;
	}

	private static String get(String base, String path, String method) throws IOException, InterruptedException {
		HttpRequest request = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30))
			.method(method, HttpRequest.BodyPublishers.noBody()).build();
		return HTTP.send(request, HttpResponse.BodyHandlers.ofString()).body();
	}

}
