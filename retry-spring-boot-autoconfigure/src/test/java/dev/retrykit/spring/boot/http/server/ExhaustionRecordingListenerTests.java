package dev.retrykit.spring.boot.http.server;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

import dev.retrykit.RetryConfig;
import dev.retrykit.RetryListener;
import dev.retrykit.RetryRegistry;
import dev.retrykit.RetryTemplate;
import dev.retrykit.VirtualTime;
import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.context.RetryContext;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The listener records a call into its request's marker exactly when the call gave up on a failure it would
 * otherwise have retried, whatever thread closes it, and leaves nothing in the call's context.
 */
class ExhaustionRecordingListenerTests {

	private final VirtualTime time = new VirtualTime();

	private final AtomicReference<@Nullable Object> attributeAtClose = new AtomicReference<>("unset");

	private final RetryRegistry registry = RetryRegistry.builder().virtualTime(this.time)
		.defaults(RetryConfig.builder().maxAttempts(2).backoff(BackoffPolicy.none()).build())
		.instance("leaf", null, config -> config.retryOn(IOException.class))
		.listener(new RetryListener() {

			@Override
			public void close(RetryContext context, @Nullable Throwable failure) {
				// Registered first, so told last: after the recording listener cleaned up.
				ExhaustionRecordingListenerTests.this.attributeAtClose
					.set(context.getAttribute(ExhaustionRecordingListener.ATTRIBUTE));
			}

		})
		.listener(new ExhaustionRecordingListener())
		.build();

	private final RetryTemplate leaf = this.registry.template("leaf");

	@Test
	void aCallThatRanOutOfAttemptsIsRecorded() {
		ExhaustionMarker marker = new ExhaustionMarker();
		try (ExhaustionMarker.Scope scope = marker.enter()) {
			assertThatExceptionOfType(IOException.class)
				.isThrownBy(() -> this.leaf.execute(context -> { throw new IOException("down"); }));
		}
		assertThat(marker.exhaustedInstance()).isEqualTo("leaf");
		assertThat(this.attributeAtClose).hasValue(null);
	}

	@Test
	void anAsyncCallThatRanOutIsRecordedIntoTheMarkerOfTheThreadThatStartedIt() {
		ExhaustionMarker marker = new ExhaustionMarker();
		CompletableFuture<Object> call;
		try (ExhaustionMarker.Scope scope = marker.enter()) {
			call = this.leaf.executeAsync(() -> CompletableFuture.failedFuture(new IOException("down")));
		}
		this.time.advance(java.time.Duration.ofSeconds(1));
		assertThat(call).isCompletedExceptionally();
		assertThat(marker.exhaustedInstance()).isEqualTo("leaf");
	}

	@Test
	void aCallThatSucceededOnRetryARecoveredCallAndAFailureNotRetriedAreNotRecorded() throws Exception {
		ExhaustionMarker marker = new ExhaustionMarker();
		try (ExhaustionMarker.Scope scope = marker.enter()) {
			this.leaf.execute(context -> {
				if (context.getRetryCount() == 0) {
					throw new IOException("once");
				}
				return "ok";
			});
			this.leaf.execute(context -> { throw new IOException("down"); }, context -> "recovered");
			assertThatExceptionOfType(IllegalStateException.class)
				.isThrownBy(() -> this.leaf.execute(context -> { throw new IllegalStateException("not retried"); }));
		}
		assertThat(marker.exhaustedInstance()).isNull();
	}

	@Test
	void aCallOutsideAnyRequestRecordsNothingAndKeepsNoAttribute() {
		assertThatExceptionOfType(IOException.class)
			.isThrownBy(() -> this.leaf.execute(context -> { throw new IOException("down"); }));
		assertThat(ExhaustionMarker.current()).isNull();
		assertThat(this.attributeAtClose).hasValue(null);
	}

	@Test
	void scopesNestAndRestore() {
		ExhaustionMarker outer = new ExhaustionMarker();
		ExhaustionMarker inner = new ExhaustionMarker();
		try (ExhaustionMarker.Scope first = outer.enter()) {
			try (ExhaustionMarker.Scope second = inner.enter()) {
				assertThat(ExhaustionMarker.current()).isSameAs(inner);
			}
			assertThat(ExhaustionMarker.current()).isSameAs(outer);
		}
		assertThat(ExhaustionMarker.current()).isNull();
	}

}
