package dev.retrykit.spring.boot.actuate.endpoint;

import java.util.Set;

import dev.retrykit.RetryRegistry;
import dev.retrykit.VirtualTime;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

import static org.assertj.core.api.Assertions.assertThat;

class RetriesEndpointBadRequestTests {

	private final VirtualTime time = new VirtualTime();

	private final RetryRegistry registry = TestRetryRegistries.create(this.time);

	private final RetriesEndpointWebExtension extension = new RetriesEndpointWebExtension(
			new RetriesEndpoint(this.registry, Show.NEVER, this.time), Show.NEVER, Set.of());

	@Test
	void aMissingActionIsAnswered400WithTheExpectedForm() {
		WebEndpointResponse<Object> response = this.extension.perform("payments", null);
		assertThat(response.getStatus()).isEqualTo(400);
		assertThat(message(response)).contains("expected {\"action\": \"open-circuit\" | \"close-circuit\" | \"clear-cache\"}");
	}

	@Test
	void anUnknownActionIsAnswered400WithTheExpectedForm() {
		WebEndpointResponse<Object> response = this.extension.perform("payments", "reboot");
		assertThat(response.getStatus()).isEqualTo(400);
		assertThat(message(response)).contains("'reboot'", "open-circuit");
	}

	@Test
	void aLongActionOrInstanceNameIsTruncatedInTheMessage() {
		String huge = "y".repeat(100_000);
		assertThat(message(this.extension.perform("payments", huge))).hasSizeLessThan(400);
		assertThat(message(this.extension.perform(huge, "clear-cache"))).hasSizeLessThan(400);
	}

	private static String message(WebEndpointResponse<Object> response) {
		return ((RetriesEndpointWebExtension.ErrorDescriptor) response.getBody()).message();
	}

}
