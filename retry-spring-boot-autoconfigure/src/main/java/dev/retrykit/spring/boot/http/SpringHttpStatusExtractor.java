package dev.retrykit.spring.boot.http;

import dev.retrykit.spi.StatusExtractor;
import org.jspecify.annotations.Nullable;

/**
 * A {@link StatusExtractor} of kind HTTP for Spring's HTTP client exceptions:
 * {@code RestClientResponseException} and its subclasses, and {@code WebClientResponseException} when
 * WebFlux is on the classpath. The auto-configuration adds it to every instance, so that
 * {@code match.http-status} works with RestClient, RestTemplate and WebClient. Thread-safe; never throws.
 */
public final class SpringHttpStatusExtractor implements StatusExtractor {

	private final HttpErrorReader[] readers;

	/**
	 * @param classLoader the class loader in which to look for the exception types
	 */
	public SpringHttpStatusExtractor(@Nullable ClassLoader classLoader) {
		this.readers = HttpErrorReaders.present(classLoader);
	}

	@Override
	public Kind kind() {
		return Kind.HTTP;
	}

	@Override
	public int statusOf(Throwable failure) {
		for (HttpErrorReader reader : this.readers) {
			HttpErrorResponse response = reader.read(failure);
			if (response != null) {
				return response.status().value();
			}
		}
		return NO_STATUS;
	}

	@Override
	public String toString() {
		return "SpringHttpStatusExtractor";
	}

}
