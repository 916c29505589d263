package dev.retrykit.sample.cluster;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dashboard's cluster panels query only series that a replica of the sample's {@code cluster} profile
 * exports, with the {@code application} label the dashboard filters on and the engine as a label.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = "spring.test.metrics.export=true")
@ActiveProfiles("cluster")
class ClusterDashboardSeriesTests {

	private static final Pattern EXPRESSION = Pattern.compile("\"(?:expr|definition)\"\\s*:\\s*\"((?:[^\"\\\\]|\\\\.)*)\"");

	private static final Pattern CLUSTER_SERIES = Pattern.compile("\\bretry_cluster_[a-z0-9_]+\\b");

	@DynamicPropertySource
	static void ports(DynamicPropertyRegistry registry) {
		int base = FreePorts.block(HazelcastMemberConfiguration.PORTS);
		registry.add("sample.hazelcast.port", () -> base);
	}

	@LocalServerPort
	int port;

	@Test
	void everyClusterSeriesTheDashboardQueriesIsExportedWithTheApplicationAndEngine() throws Exception {
		Set<String> queried = new TreeSet<>();
		Matcher expressions = EXPRESSION.matcher(Files.readString(Path.of("..", "dashboards", "retrykit.json")));
		while (expressions.find()) {
			Matcher names = CLUSTER_SERIES.matcher(expressions.group(1));
			while (names.find()) {
				queried.add(names.group());
			}
		}
		assertThat(queried).contains("retry_cluster_members", "retry_cluster_fallbacks_total", "retry_cluster_dropped_total",
				"retry_cluster_write_backs_pending");
		String scrape = HttpClient.newHttpClient()
			.send(HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + "/actuator/prometheus")).build(),
					HttpResponse.BodyHandlers.ofString())
			.body();
		for (String series : queried) {
			assertThat(scrape).as("%s with the application and engine labels", series)
				.containsPattern("(?m)^" + series + "\\{[^}]*application=\"retrykit-sample\"")
				.containsPattern("(?m)^" + series + "\\{[^}]*engine=\"hazelcast\"");
		}
	}

}
