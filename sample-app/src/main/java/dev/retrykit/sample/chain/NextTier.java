package dev.retrykit.sample.chain;

import java.net.URI;
import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestClientResponseException;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.reactive.function.client.WebClientResponseException;

/**
 * How a tier calls the next one's {@code GET /chain/call}: with a {@link RestClient} (blocking) or a
 * {@link WebClient}, either built from Boot's builder, so that instance {@code chain} retries it (it claims the
 * host, 127.0.0.1). {@link ChainRecords} is added after retrykit's interceptor or filter, so it sees every attempt.
 * Thread-safe.
 */
abstract sealed class NextTier {

	/** Longest wait for the next tier, whatever its deadline. */
	static final Duration MAX_WAIT = Duration.ofSeconds(30);

	/**
	 * Calls the next tier.
	 * @param request the user request's id, passed on, or {@code null}
	 * @return the next tier's answer on success; 502 when it answered an error; 504 when it did not answer
	 */
	abstract Answer call(@Nullable String request);

	static NextTier restClient(RestClient.Builder builder, URI next, ChainRecords records) {
		return new Rest(builder.clone().baseUrl(next.toString()).requestInterceptor(records).build());
	}

	static NextTier webClient(WebClient.Builder builder, URI next, ChainRecords records) {
		return new Web(builder.clone().baseUrl(next.toString()).filter(records.exchangeFilter()).build());
	}

	private static void passOn(HttpHeaders headers, @Nullable String request) {
		if (request != null) {
			headers.set(ChainRecords.REQUEST_HEADER, request);
		}
	}

	/**
	 * @param status the status the tier answers with
	 * @param body what it says
	 */
	record Answer(HttpStatus status, String body) {
	}

	private static final class Rest extends NextTier {

		private final RestClient client;

		Rest(RestClient client) {
			this.client = client;
		}

		@Override
		Answer call(@Nullable String request) {
			try {
				String body = this.client.get().uri("/chain/call").headers(headers -> passOn(headers, request))
					.retrieve().body(String.class);
				return new Answer(HttpStatus.OK, String.valueOf(body));
			}
			catch (RestClientResponseException ex) {
				return new Answer(HttpStatus.BAD_GATEWAY, "the next tier answered " + ex.getStatusCode().value());
			}
			catch (RuntimeException ex) {
				return new Answer(HttpStatus.GATEWAY_TIMEOUT, "the next tier did not answer: " + ex);
			}
		}

	}

	private static final class Web extends NextTier {

		private final WebClient client;

		Web(WebClient client) {
			this.client = client;
		}

		@Override
		Answer call(@Nullable String request) {
			try {
				// Subscribed on the request's thread, under its deadline: the call reads it from there.
				String body = this.client.get().uri("/chain/call").headers(headers -> passOn(headers, request))
					.retrieve().bodyToMono(String.class).block(MAX_WAIT);
				return new Answer(HttpStatus.OK, String.valueOf(body));
			}
			catch (WebClientResponseException ex) {
				return new Answer(HttpStatus.BAD_GATEWAY, "the next tier answered " + ex.getStatusCode().value());
			}
			catch (RuntimeException ex) {
				return new Answer(HttpStatus.GATEWAY_TIMEOUT, "the next tier did not answer: " + ex);
			}
		}

	}

}
