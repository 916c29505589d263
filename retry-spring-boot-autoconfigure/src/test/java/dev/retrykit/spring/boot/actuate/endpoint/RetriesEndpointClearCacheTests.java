package dev.retrykit.spring.boot.actuate.endpoint;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.UnaryOperator;

import dev.retrykit.InMemoryRetryContextCache;
import dev.retrykit.context.RetryContext;
import dev.retrykit.RetryRegistry;
import dev.retrykit.RetryState;
import dev.retrykit.VirtualTime;
import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.spi.RetryContextCache;
import dev.retrykit.spi.RetryContextCacheEntry;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@code clear-cache} reports what happened: 200 once every context is gone, 503 with a message when the
 * instance's cache is shared and its shared store could not be cleared (the local one was).
 */
class RetriesEndpointClearCacheTests {

	private final VirtualTime time = new VirtualTime();

	private final SharedCache cache = new SharedCache(this.time);

	private final RetryRegistry registry = RetryRegistry.builder().virtualTime(this.time)
		.instance("payments", null, (config) -> config.maxAttempts(3).backoff(BackoffPolicy.none()))
		.customizer((name, builder) -> builder.contextCache(this.cache))
		.build();

	private final RetriesEndpoint endpoint = new RetriesEndpoint(this.registry, Show.NEVER, this.time);

	private final RetriesEndpointWebExtension extension = new RetriesEndpointWebExtension(this.endpoint, Show.NEVER,
			java.util.Set.of());

	RetriesEndpointClearCacheTests() {
		try {
			this.registry.template("payments").execute((context) -> {
				throw new IOException("declined");
			}, RetryState.of("order-1"));
		}
		catch (IOException expected) {
			// Rethrown so that the caller can roll back; the context stays cached.
		}
	}

	@Test
	void answers200WhenEveryContextWasCleared() {
		WebEndpointResponse<Object> response = this.extension.perform("payments", "clear-cache");

		assertThat(response.getStatus()).isEqualTo(200);
		assertThat(this.cache.size()).isZero();
	}

	@Test
	void answers503WithAMessageWhenTheSharedContextsCouldNotBeCleared() {
		this.cache.engineReachable.set(false);

		WebEndpointResponse<Object> response = this.extension.perform("payments", "clear-cache");

		assertThat(response.getStatus()).isEqualTo(503);
		assertThat(response.getBody()).isInstanceOfSatisfying(RetriesEndpointWebExtension.ErrorDescriptor.class,
				(error) -> assertThat(error.message()).startsWith(
						"The shared context cache of retry instance 'payments' could not be cleared")
					.contains("local contexts were cleared", "shared ones remain"));
		assertThat(this.cache.local.size()).isZero();
	}

	@Test
	void theTechnologyNeutralEndpointThrowsInsteadOfReportingSuccess() {
		this.cache.engineReachable.set(false);

		assertThatExceptionOfType(ContextCacheNotClearedException.class)
			.isThrownBy(() -> this.endpoint.perform("payments", "clear-cache"))
			.withMessageContaining("'payments'");
	}

	/** A cache shared through an engine that can be made unreachable: its local part clears, the shared one not. */
	static final class SharedCache implements RetryContextCache {

		final InMemoryRetryContextCache local;

		final AtomicBoolean engineReachable = new AtomicBoolean(true);

		SharedCache(VirtualTime time) {
			this.local = new InMemoryRetryContextCache(16, time);
		}

		@Override
		public @Nullable RetryContext get(Object key) {
			return this.local.get(key);
		}

		@Override
		public void put(Object key, RetryContext context) {
			this.local.put(key, context);
		}

		@Override
		public @Nullable RetryContext update(Object key, UnaryOperator<@Nullable RetryContext> update) {
			return this.local.update(key, update);
		}

		@Override
		public void remove(Object key) {
			this.local.remove(key);
		}

		@Override
		public int size() {
			return this.local.size();
		}

		@Override
		public int capacity() {
			return this.local.capacity();
		}

		@Override
		public long evictions() {
			return this.local.evictions();
		}

		@Override
		public void clear() {
			this.local.clear();
		}

		@Override
		public boolean tryClear() {
			this.local.clear();
			return this.engineReachable.get();
		}

		@Override
		public List<RetryContextCacheEntry> entries(int limit) {
			return this.local.entries(limit);
		}

	}

}
