package dev.retrykit.spring.boot.http;

import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.util.ClassUtils;

/** The readers of the Spring HTTP client exception families present on the classpath. */
final class HttpErrorReaders {

	private HttpErrorReaders() {
	}

	static HttpErrorReader[] present(@Nullable ClassLoader classLoader) {
		List<HttpErrorReader> readers = new ArrayList<>(2);
		if (ClassUtils.isPresent("org.springframework.web.client.RestClientResponseException", classLoader)) {
			readers.add(new RestClientErrorReader());
		}
		if (ClassUtils.isPresent("org.springframework.web.reactive.function.client.WebClientResponseException",
				classLoader)) {
			readers.add(new WebClientErrorReader());
		}
		return readers.toArray(new HttpErrorReader[0]);
	}

}
