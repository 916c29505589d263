package dev.retrykit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.context.RetryContext;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Failure types that are never recovered (Spring Retry's {@code notRecoverable}). */
class NotRecoverableTests {

	private final VirtualTime time = new VirtualTime();

	private final AtomicInteger recoveries = new AtomicInteger();

	private final RetryTemplate template = RetryTemplate.builder().virtualTime(this.time)
		.config(RetryConfig.builder().maxAttempts(2).backoff(BackoffPolicy.none())
			.notRecoverable(UncheckedIOException.class).build())
		.build();

	private final UncheckedIOException fatal = new UncheckedIOException(new IOException("disk gone"));

	private String recover(RetryContext context) {
		this.recoveries.incrementAndGet();
		return "recovered";
	}

	@Test
	void aNotRecoverableFailureSkipsTheRecoveryAndIsRethrownUnchanged() {
		assertThatThrownBy(() -> this.template.execute(context -> {
			throw this.fatal;
		}, this::recover)).isSameAs(this.fatal);
		assertThat(this.recoveries).hasValue(0);
		assertThat(this.template.getMetrics().getRecoveries()).isZero();
	}

	@Test
	void otherFailuresAreStillRecovered() throws Exception {
		String result = this.template.execute(context -> {
			throw new IOException("down");
		}, this::recover);
		assertThat(result).isEqualTo("recovered");
	}

	@Test
	void aNotRecoverableAsyncFailureSkipsTheRecovery() {
		CompletableFuture<String> call = this.template.executeAsync(() -> CompletableFuture.failedFuture(this.fatal),
				failure -> {
					this.recoveries.incrementAndGet();
					return CompletableFuture.completedFuture("recovered");
				});
		this.time.advance(Duration.ofMinutes(1));
		assertThatThrownBy(call::join).hasCause(this.fatal);
		assertThat(this.recoveries).hasValue(0);
	}

	@Test
	void aNotRecoverableStatefulFailureSkipsTheRecoveryOnTheNextCall() {
		RetryState state = RetryState.of("message-1");
		for (int i = 0; i < 2; i++) {
			assertThatThrownBy(() -> this.template.execute(context -> {
				throw this.fatal;
			}, this::recover, state)).isSameAs(this.fatal);
		}
		assertThatThrownBy(() -> this.template.execute(context -> "never", this::recover, state))
			.isInstanceOf(ExhaustedRetryException.class).hasCause(this.fatal);
		assertThat(this.recoveries).hasValue(0);
	}

	@Test
	void theConfigShowsItsNotRecoverableTypes() {
		assertThat(this.template.getConfig().getNotRecoverable()).containsExactly(UncheckedIOException.class);
		assertThat(this.template.getConfig().toString()).contains("notRecoverable=[java.io.UncheckedIOException]");
	}

}
