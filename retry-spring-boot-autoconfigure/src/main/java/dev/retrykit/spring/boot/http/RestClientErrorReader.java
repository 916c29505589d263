package dev.retrykit.spring.boot.http;

import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpHeaders;
import org.springframework.web.client.RestClientResponseException;

/** Reads {@link RestClientResponseException} and its subclasses (RestClient, RestTemplate). */
final class RestClientErrorReader implements HttpErrorReader {

	@Override
	public int status(Throwable failure) {
		return (failure instanceof RestClientResponseException response) ? response.getStatusCode().value() : -1;
	}

	@Override
	public @Nullable String header(Throwable failure, String name) {
		if (failure instanceof RestClientResponseException response) {
			HttpHeaders headers = response.getResponseHeaders();
			return (headers != null) ? headers.getFirst(name) : null;
		}
		return null;
	}

}
