package dev.retrykit.spring.boot.http;

import org.jspecify.annotations.Nullable;

import org.springframework.web.client.RestClientResponseException;

/** Reads {@link RestClientResponseException} and its subclasses (RestClient, RestTemplate). */
final class RestClientErrorReader implements HttpErrorReader {

	@Override
	public @Nullable HttpErrorResponse read(Throwable failure) {
		return (failure instanceof RestClientResponseException response)
				? new HttpErrorResponse(response.getStatusCode(), response.getResponseHeaders()) : null;
	}

}
