package dev.retrykit;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import dev.retrykit.backoff.BackoffPolicy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * How calls end when a hook throws late or an attempt is interrupted: counted by what really
 * happened, and an interrupt is never swallowed by a retry.
 */
class CallOutcomeTests {

	private final VirtualTime time = new VirtualTime();

	private final IOException down = new IOException("down");

	private final IllegalStateException broken = new IllegalStateException("hook failed");

	@AfterEach
	void clearInterrupt() {
		Thread.interrupted();
	}

	@Test
	void aClassifierThatThrowsOnTheSecondAttemptCountsACallFailedWithRetry() {
		AtomicInteger classified = new AtomicInteger();
		RetryTemplate template = RetryTemplate.builder().virtualTime(this.time)
			.config(RetryConfig.builder().maxAttempts(5).retryIf(failure -> {
				if (classified.incrementAndGet() == 2) {
					throw this.broken;
				}
				return true;
			}).build())
			.build();
		assertThatThrownBy(() -> template.execute(context -> {
			throw this.down;
		})).isSameAs(this.broken);
		assertThat(template.getMetrics().getFailedCallsWithRetry()).isEqualTo(1);
		assertThat(template.getMetrics().getFailedCallsWithoutRetry()).isZero();
	}

	@Test
	void aResultPredicateThatThrowsOnTheSecondAttemptCountsACallFailedWithRetry() {
		AtomicInteger tested = new AtomicInteger();
		RetryTemplate template = RetryTemplate.builder().virtualTime(this.time).retryOnResult(result -> {
			if (tested.incrementAndGet() == 2) {
				throw this.broken;
			}
			return true;
		}).build();
		assertThatThrownBy(() -> template.execute(context -> "empty")).isSameAs(this.broken);
		assertThat(template.getMetrics().getFailedCallsWithRetry()).isEqualTo(1);
		assertThat(template.getMetrics().getFailedCallsWithoutRetry()).isZero();
	}

	@Test
	void anAsyncClassifierThatThrowsOnTheSecondAttemptCountsACallFailedWithRetry() {
		AtomicInteger classified = new AtomicInteger();
		RetryTemplate template = RetryTemplate.builder().virtualTime(this.time)
			.config(RetryConfig.builder().maxAttempts(5).backoff(BackoffPolicy.fixed(Duration.ofSeconds(1)))
				.retryIf(failure -> {
					if (classified.incrementAndGet() == 2) {
						throw this.broken;
					}
					return true;
				}).build())
			.build();
		CompletableFuture<String> call = template.executeAsync(() -> CompletableFuture.failedFuture(this.down));
		this.time.advance(Duration.ofSeconds(1));
		assertThatThrownBy(call::join).hasCause(this.broken);
		assertThat(template.getMetrics().getFailedCallsWithRetry()).isEqualTo(1);
	}

	@Test
	void anInterruptedAttemptEndsTheCallAtOnceWithTheInterruptFlagRestored() {
		AtomicInteger attempts = new AtomicInteger();
		InterruptedException interrupted = new InterruptedException("stop");
		RetryTemplate template = RetryTemplate.builder().virtualTime(this.time).maxAttempts(5).build();
		assertThatThrownBy(() -> template.execute(context -> {
			attempts.incrementAndGet();
			throw interrupted;
		})).isSameAs(interrupted);
		assertThat(Thread.currentThread().isInterrupted()).isTrue();
		assertThat(attempts).hasValue(1);
		assertThat(this.time.sleeps()).isEmpty();
		assertThat(template.getMetrics().getFailedCallsWithoutRetry()).isEqualTo(1);
	}

	@Test
	void anInterruptedAttemptIsNotRecovered() {
		InterruptedException interrupted = new InterruptedException("stop");
		RetryTemplate template = RetryTemplate.builder().virtualTime(this.time).maxAttempts(5).build();
		assertThatThrownBy(() -> template.execute(context -> {
			throw interrupted;
		}, context -> "recovered")).isSameAs(interrupted);
		assertThat(Thread.currentThread().isInterrupted()).isTrue();
	}

	@Test
	void anInterruptedStatefulAttemptEndsTheCallWithTheInterruptFlagRestoredAndCachesNothing() {
		InterruptedException interrupted = new InterruptedException("stop");
		RetryTemplate template = RetryTemplate.builder().virtualTime(this.time).maxAttempts(5).build();
		assertThatThrownBy(() -> template.execute(context -> {
			throw interrupted;
		}, RetryState.of("message-1"))).isSameAs(interrupted);
		assertThat(Thread.currentThread().isInterrupted()).isTrue();
		assertThat(template.getContextCache().size()).isZero();
	}

	@Test
	void anAsyncAttemptThatFailsWithInterruptedExceptionIsNotRetried() {
		AtomicInteger attempts = new AtomicInteger();
		InterruptedException interrupted = new InterruptedException("stop");
		RetryTemplate template = RetryTemplate.builder().virtualTime(this.time).maxAttempts(5).build();
		CompletableFuture<String> call = template.executeAsync(() -> {
			attempts.incrementAndGet();
			return CompletableFuture.failedFuture(interrupted);
		});
		this.time.advance(Duration.ofMinutes(1));
		assertThatThrownBy(call::join).hasCause(interrupted);
		assertThat(attempts).hasValue(1);
	}

}
