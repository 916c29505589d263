package dev.retrykit.spring.boot.actuate.endpoint;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.client.RestTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Over real HTTP: a write whose body is not the expected form is answered with a 400 that says the form,
 * and an oversized action is not echoed back.
 */
@SpringBootTest(classes = RetriesTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "management.endpoints.web.exposure.include=retries",
				"management.endpoint.retries.access=unrestricted" })
@AutoConfigureRestTestClient
class RetriesEndpointBadRequestHttpTests {

	private static final String EXPECTED_FORM = "{\"action\": \"open-circuit\" | \"close-circuit\" | \"clear-cache\"}";

	@Autowired
	private RestTestClient client;

	@ParameterizedTest(name = "body [{0}]")
	@ValueSource(strings = { "", "{}", "{\"action\":", "not json", "{\"verb\": \"open-circuit\"}" })
	void aBodyThatIsNotTheExpectedFormIsAnswered400WithTheExpectedForm(String body) {
		String answer = this.client.post().uri("/actuator/retries/payments").contentType(MediaType.APPLICATION_JSON)
			.body(body).exchange().expectStatus().isBadRequest().expectBody(String.class).returnResult()
			.getResponseBody();
		assertThat(answer).contains("expected").contains("open-circuit").contains("close-circuit").contains("clear-cache");
	}

	@ParameterizedTest(name = "body [{0}]")
	@ValueSource(strings = { "{}", "" })
	void theMessageGivesTheExpectedFormLiterally(String body) {
		this.client.post().uri("/actuator/retries/payments").contentType(MediaType.APPLICATION_JSON).body(body)
			.exchange().expectStatus().isBadRequest().expectBody().jsonPath("$.message")
			.value(message -> assertThat((String) message).contains(EXPECTED_FORM));
	}

	@org.junit.jupiter.api.Test
	void aHugeActionIsNotEchoedBack() {
		String huge = "x".repeat(5 * 1024 * 1024);
		String answer = this.client.post().uri("/actuator/retries/payments").contentType(MediaType.APPLICATION_JSON)
			.body("{\"action\": \"" + huge + "\"}").exchange().expectStatus().isBadRequest().expectBody(String.class)
			.returnResult().getResponseBody();
		assertThat(answer).hasSizeLessThan(1024).contains("xxxxxxxx").contains("…");
	}

}
