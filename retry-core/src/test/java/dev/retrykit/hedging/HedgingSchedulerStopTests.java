package dev.retrykit.hedging;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;

import dev.retrykit.RetryConfig;
import dev.retrykit.RetryTemplate;
import dev.retrykit.VirtualTime;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** A hedged call whose scheduler stops: it goes on with its copies in flight, or ends if it has none. */
class HedgingSchedulerStopTests {

	private final VirtualTime time = new VirtualTime();

	private final Downstream downstream = new Downstream();

	private final RetryTemplate template = RetryTemplate.builder().name("search").virtualTime(this.time)
		.config(RetryConfig.builder().maxAttempts(3).hedging(HedgingConfig.builder().delay(Duration.ofMillis(10)).build())
			.delayHint(failure -> Duration.ofMillis(50)).build())
		.build();

	@Test
	void aCallWaitingOnlyForTheTimerEndsWhenTheSchedulerStops() {
		CompletableFuture<String> call = this.template.executeAsync(this.downstream);
		this.downstream.copy(1).completeExceptionally(new IOException("retry after 50ms"));
		assertThat(call).isNotDone();

		this.time.stop();

		assertThat(call).isCompletedExceptionally();
		assertThat(call.handle((value, failure) -> failure).join()).isInstanceOf(RejectedExecutionException.class)
			.hasCauseInstanceOf(IOException.class);
		assertThat(this.downstream.calls()).isEqualTo(1);
	}

	@Test
	void aCallWithACopyInFlightEndsWithItWhenTheSchedulerStops() {
		CompletableFuture<String> call = this.template.executeAsync(this.downstream);

		this.time.stop();
		assertThat(call).isNotDone();
		this.downstream.copy(1).complete("first");

		assertThat(call).isCompletedWithValue("first");
		assertThat(this.downstream.calls()).isEqualTo(1);
	}

	@Test
	void aCallStartedOnAStoppedSchedulerStillRunsItsFirstCopy() {
		this.time.stop();

		CompletableFuture<String> call = this.template.executeAsync(this.downstream);
		this.downstream.copy(1).complete("first");

		assertThat(call).isCompletedWithValue("first");
	}

}
