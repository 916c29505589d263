package dev.retrykit.sample;

import java.util.List;

import dev.retrykit.VirtualTime;
import dev.retrykit.sample.downstream.FlakyDownstream;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.test.simple.SimpleSpan;
import io.micrometer.tracing.test.simple.SimpleTracer;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With Micrometer Tracing (here its {@link SimpleTracer}), a retried call of the running sample is a
 * span {@code retry inventory} under the HTTP request's span, and each attempt a span under it, one
 * after the other (the gap between two attempt spans is the backoff), with the attempt's own request to
 * the downstream under the attempt.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class TracingTests extends SampleOverHttp {

	@Autowired
	FlakyDownstream downstream;

	@Autowired
	SimpleTracer tracer;

	@Test
	void eachAttemptIsASpanUnderItsCallsSpan() throws Exception {
		this.downstream.reset();
		this.downstream.failNext("inventory", 2, 503, 0);
		assertThat(get("/shop/stock/SKU-7").statusCode()).isEqualTo(200);

		List<SimpleSpan> spans = List.copyOf(this.tracer.getSpans());
		SimpleSpan call = spans.stream().filter(span -> span.getName().equals("retry inventory")).findFirst().orElseThrow();
		assertThat(call.getTags()).containsEntry("name", "inventory").containsEntry("outcome", "successful_with_retry")
			.containsEntry("exception", "none");
		assertThat(spans).filteredOn(span -> span.getSpanId().equals(call.getParentId()))
			.singleElement().satisfies(request -> assertThat(request.getName()).startsWith("http get"));

		List<SimpleSpan> attempts = spans.stream().filter(span -> span.getName().equals("retry inventory attempt"))
			.sorted(java.util.Comparator.comparing(SimpleSpan::getStartTimestamp)).toList();
		assertThat(attempts).hasSize(3).allSatisfy(attempt -> {
			assertThat(attempt.getParentId()).isEqualTo(call.getSpanId());
			assertThat(attempt.getTraceId()).isEqualTo(call.getTraceId());
		});
		assertThat(attempts).extracting(attempt -> attempt.getTags().get("attempt")).containsExactly("1", "2", "3");
		assertThat(attempts).extracting(attempt -> attempt.getTags().get("exception"))
			.containsExactly("RetriedStatusException", "RetriedStatusException", "none");
		for (int i = 1; i < attempts.size(); i++) {
			assertThat(attempts.get(i).getStartTimestamp()).isAfterOrEqualTo(attempts.get(i - 1).getEndTimestamp());
		}
		// Each attempt is in scope while it runs: its request to the downstream is a client span under it.
		for (SimpleSpan attempt : attempts) {
			assertThat(spans).filteredOn(span -> attempt.getSpanId().equals(span.getParentId()))
				.singleElement()
				.satisfies(client -> assertThat(client.getTags()).containsEntry("uri", "/downstream/inventory/{sku}"));
		}
	}

	@TestConfiguration
	static class TracingConfiguration {

		@Bean
		VirtualTime virtualTime() {
			return new VirtualTime();
		}

		@Bean
		SimpleTracer simpleTracer() {
			return new SimpleTracer();
		}

		@Bean
		DefaultTracingObservationHandler tracingObservationHandler(SimpleTracer tracer) {
			return new DefaultTracingObservationHandler(tracer);
		}

	}

}
