package dev.retrykit.sample;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.retrykit.VirtualTime;
import dev.retrykit.sample.downstream.FlakyDownstream;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Grafana dashboard users import ({@code dashboards/retrykit.json}) queries only series that the
 * sample exports: after traffic through every client, each metric named in a PromQL expression of the
 * dashboard (panels and variables) is a sample name in {@code /actuator/prometheus}, with the
 * {@code application} label the dashboard filters on. Sample names are compared as exported, suffixes
 * included, so a latency panel over {@code retry_call_seconds_bucket} also fails when the timer
 * publishes no histogram.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = "spring.test.metrics.export=true")
class DashboardSeriesTests extends SampleOverHttp {

	private static final Path DASHBOARD = Path.of("..", "dashboards", "retrykit.json");

	/** A PromQL expression in the dashboard: a panel target's {@code expr} or a variable's {@code definition}. */
	private static final Pattern EXPRESSION = Pattern.compile("\"(?:expr|definition)\"\\s*:\\s*\"((?:[^\"\\\\]|\\\\.)*)\"");

	/** Every meter of retrykit is exported under the {@code retry_} prefix; label names never start with it. */
	private static final Pattern SERIES = Pattern.compile("\\bretry_[a-z0-9_]+\\b");

	@Autowired
	FlakyDownstream downstream;

	@Autowired
	VirtualTime time;

	@Test
	void everySeriesTheDashboardQueriesIsExportedWithTheApplicationTag() throws Exception {
		driveTraffic();
		Set<String> queried = queriedSeries(Files.readString(DASHBOARD));
		assertThat(queried).as("series queried by %s", DASHBOARD).contains("retry_calls_total",
				"retry_call_seconds_bucket", "retry_circuit_state", "retry_budget_tokens", "retry_budget_available",
				"retry_failback_exhausted_total",
				"retry_failback_rejected_total", "retry_context_cache_evictions_total", "retry_hedges_total",
				"retry_hedging_delay_seconds");
		// The cluster's series come from the cluster profile only: ClusterDashboardSeriesTests checks them.
		queried.removeIf(series -> series.startsWith("retry_cluster_"));
		String scrape = get("/actuator/prometheus").body();
		Set<String> exported = exportedSeries(scrape);
		assertThat(exported).as("series exported by the sample").containsAll(queried);
		for (String series : queried) {
			assertThat(scrape).as("%s with the application tag", series)
				.containsPattern("(?m)^" + series + "\\{[^}]*application=\"retrykit-sample\"");
		}
	}

	@Test
	void theAmplificationRowShowsRetriesPerTierAndWhatWasNotRetriedAcrossHops() throws IOException {
		String dashboard = Files.readString(DASHBOARD);
		assertThat(dashboard).contains("\"title\": \"Across hops (amplification)\"",
				"sum by (application) (rate(retry_attempts_total{", "sum by (application) (rate(retry_calls_total{",
				"reason=\\\"downstream_exhausted\\\"", "reason=\\\"deadline\\\"");
	}

	@Test
	void extractsTheMetricNamesOfPromQlExpressions() {
		String json = """
				{"expr": "sum by (name, le) (rate(retry_call_seconds_bucket{name=~\\"$name\\"}[$__rate_interval]))"},
				{"definition": "label_values(retry_calls_total{application=~\\"$application\\"}, name)"}
				""";
		assertThat(queriedSeries(json)).containsExactly("retry_call_seconds_bucket", "retry_calls_total");
		assertThat(exportedSeries("# HELP retry_x a\nretry_x_total{name=\"a\"} 1.0\nretry_y 2.0\n"))
			.containsExactly("retry_x_total", "retry_y");
	}

	/** Calls through every client, so that every instance's meters and the call timer have samples. */
	private void driveTraffic() throws IOException, InterruptedException {
		this.downstream.reset();
		this.downstream.failNext("inventory", 1, 503, 0);
		assertThat(get("/shop/stock/SKU-1").statusCode()).isEqualTo(200);
		assertThat(get("/shop/price/SKU-1").statusCode()).isEqualTo(200);
		assertThat(get("/shop/recommendations/SKU-1").statusCode()).isEqualTo(200);
		assertThat(get("/shop/search/boots").statusCode()).isEqualTo(200);
		this.downstream.down("audit");
		assertThat(post("/shop/orders/O-1/audit").statusCode()).isEqualTo(202);
		this.downstream.up("audit");
		this.time.advance(Duration.ofSeconds(1));
		this.downstream.failNext("payments", 1, 503, 0);
		assertThat(post("/shop/orders/O-2/pay").statusCode()).isEqualTo(502);
	}

	static Set<String> queriedSeries(String dashboard) {
		Set<String> series = new TreeSet<>();
		Matcher expressions = EXPRESSION.matcher(dashboard);
		while (expressions.find()) {
			Matcher names = SERIES.matcher(expressions.group(1));
			while (names.find()) {
				series.add(names.group());
			}
		}
		return series;
	}

	static Set<String> exportedSeries(String scrape) {
		Set<String> series = new TreeSet<>();
		for (String line : scrape.split("\n")) {
			if (!line.isBlank() && !line.startsWith("#")) {
				series.add(line.split("[{ ]", 2)[0]);
			}
		}
		return series;
	}

	@TestConfiguration
	static class VirtualTimeConfiguration {

		@Bean
		VirtualTime virtualTime() {
			return new VirtualTime();
		}

	}

}
