package dev.retrykit.spring.boot.http;

import org.jspecify.annotations.Nullable;

import org.springframework.web.reactive.function.client.WebClientResponseException;

/** Reads {@link WebClientResponseException} (WebFlux's WebClient). Loaded only when WebFlux is present. */
final class WebClientErrorReader implements HttpErrorReader {

	@Override
	public @Nullable HttpErrorResponse read(Throwable failure) {
		return (failure instanceof WebClientResponseException response)
				? new HttpErrorResponse(response.getStatusCode(), response.getHeaders()) : null;
	}

}
