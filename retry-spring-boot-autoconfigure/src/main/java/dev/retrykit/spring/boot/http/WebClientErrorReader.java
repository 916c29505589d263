package dev.retrykit.spring.boot.http;

import org.jspecify.annotations.Nullable;

import org.springframework.web.reactive.function.client.WebClientResponseException;

/** Reads {@link WebClientResponseException} (WebFlux's WebClient). Loaded only when WebFlux is present. */
final class WebClientErrorReader implements HttpErrorReader {

	@Override
	public int status(Throwable failure) {
		return (failure instanceof WebClientResponseException response) ? response.getStatusCode().value() : -1;
	}

	@Override
	public @Nullable String header(Throwable failure, String name) {
		return (failure instanceof WebClientResponseException response) ? response.getHeaders().getFirst(name) : null;
	}

}
