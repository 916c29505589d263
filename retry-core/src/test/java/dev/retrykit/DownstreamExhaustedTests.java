package dev.retrykit;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;

import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.context.RetryContext;
import dev.retrykit.context.StopReason;
import dev.retrykit.hedging.HedgingConfig;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link DownstreamExhaustedException}: the downstream already retried and gave up, so the call
 * neither retries nor hedges past it, whatever its classification says; it recovers as usual, counts a
 * {@code downstream_exhausted} rejection and tells its listeners {@link StopReason#DOWNSTREAM_EXHAUSTED}.
 */
class DownstreamExhaustedTests {

	private final VirtualTime time = new VirtualTime();

	private final AtomicInteger attempts = new AtomicInteger();

	private final List<@Nullable StopReason> reasons = new ArrayList<>();

	private final RetryListener closes = new RetryListener() {
		@Override
		public void close(RetryContext context, @Nullable Throwable failure) {
			DownstreamExhaustedTests.this.reasons.add(context.getStopReason());
		}
	};

	private RetryTemplateBuilder builder() {
		return RetryTemplate.builder().name("orders").virtualTime(this.time).maxAttempts(3)
			.backoff(BackoffPolicy.fixed(Duration.ofMillis(10)));
	}

	private String exhausted(RetryContext context) {
		this.attempts.incrementAndGet();
		throw new DownstreamExhaustedException("inventory", new IOException("503"));
	}

	@Test
	void aSyncCallDoesNotRetryIt() {
		RetryTemplate template = builder().build();
		assertThatThrownBy(() -> template.execute(this::exhausted)).isInstanceOf(DownstreamExhaustedException.class);
		assertThat(this.attempts).hasValue(1);
		assertThat(template.getMetrics().getDownstreamExhaustedRejections()).isEqualTo(1);
		assertThat(template.getMetrics().getFailedCallsWithoutRetry()).isEqualTo(1);
		assertThat(this.time.sleeps()).isEmpty();
	}

	@Test
	void aCallRecoversFromItAsUsualAndTellsItsListeners() {
		RetryTemplate template = builder().listener(this.closes).build();
		String result = template.execute(this::exhausted, context -> "cached");
		assertThat(result).isEqualTo("cached");
		assertThat(this.attempts).hasValue(1);
		assertThat(this.reasons).containsExactly(StopReason.DOWNSTREAM_EXHAUSTED);
		assertThat(StopReason.DOWNSTREAM_EXHAUSTED.isExhaustion()).isTrue();
	}

	@Test
	void itStopsTheCallEvenWhereTheInstanceWouldNotRetryItAnyway() {
		RetryTemplate template = builder().retryOn(IOException.class).listener(this.closes).build();
		assertThatThrownBy(() -> template.execute(this::exhausted)).isInstanceOf(DownstreamExhaustedException.class);
		assertThat(this.reasons).containsExactly(StopReason.DOWNSTREAM_EXHAUSTED);
	}

	@Test
	void anAsyncCallDoesNotRetryItWrappedInACompletionException() {
		RetryTemplate template = builder().build();
		CompletableFuture<String> call = template.executeAsync(() -> {
			this.attempts.incrementAndGet();
			return CompletableFuture.failedFuture(
					new CompletionException(new DownstreamExhaustedException("inventory", null)));
		});
		this.time.advance(Duration.ofSeconds(1));
		assertThatThrownBy(call::join).hasRootCauseInstanceOf(DownstreamExhaustedException.class);
		assertThat(this.attempts).hasValue(1);
		assertThat(template.getMetrics().getDownstreamExhaustedRejections()).isEqualTo(1);
	}

	@Test
	void aHedgedCallStartsNoFurtherCopyButLetsTheCopiesInFlightFinish() {
		RetryTemplate template = builder().maxAttempts(4).listener(this.closes)
			.hedging(HedgingConfig.builder().delay(Duration.ofMillis(100)).build()).build();
		List<CompletableFuture<String>> copies = new ArrayList<>();
		CompletableFuture<String> call = template.executeAsync(() -> {
			CompletableFuture<String> copy = new CompletableFuture<>();
			copies.add(copy);
			return copy;
		});
		this.time.advance(Duration.ofMillis(100));
		assertThat(copies).hasSize(2);
		copies.get(0).completeExceptionally(new DownstreamExhaustedException("inventory", null));
		this.time.advance(Duration.ofSeconds(1));
		assertThat(copies).hasSize(2);
		assertThat(call).isNotDone();
		copies.get(1).complete("second");
		assertThat(call.join()).isEqualTo("second");
		assertThat(this.reasons).as("a call that succeeded has no stop reason").containsExactly((StopReason) null);
	}

	@Test
	void aHedgedCallWhoseLastCopyFailsEndsWithoutAnotherCopy() {
		RetryTemplate template = builder().maxAttempts(4)
			.hedging(HedgingConfig.builder().delay(Duration.ofMillis(100)).build()).build();
		List<CompletableFuture<String>> copies = new ArrayList<>();
		CompletableFuture<String> call = template.executeAsync(() -> {
			CompletableFuture<String> copy = new CompletableFuture<>();
			copies.add(copy);
			return copy;
		});
		this.time.advance(Duration.ofMillis(100));
		copies.get(0).completeExceptionally(new DownstreamExhaustedException("inventory", null));
		copies.get(1).completeExceptionally(new IOException("reset"));
		this.time.advance(Duration.ofSeconds(1));
		assertThat(copies).hasSize(2);
		assertThat(call).isCompletedExceptionally();
		assertThat(template.getMetrics().getDownstreamExhaustedRejections()).isEqualTo(1);
	}

}
