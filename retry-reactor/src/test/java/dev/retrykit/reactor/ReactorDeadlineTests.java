package dev.retrykit.reactor;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import dev.retrykit.Deadline;
import dev.retrykit.RetryTemplate;
import dev.retrykit.VirtualTime;
import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.hedging.HedgingConfig;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;
import reactor.util.context.Context;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@link Deadline} over a retried {@code Mono}, in virtual time: read from the subscriber's
 * {@code Context} under {@code Deadline.class} (or the subscribing thread), no resubscription that
 * would end after it, and every attempt subscribing with it current.
 */
class ReactorDeadlineTests {

	private final VirtualTime time = new VirtualTime();

	private final AtomicInteger subscriptions = new AtomicInteger();

	private final List<@Nullable Deadline> seen = new CopyOnWriteArrayList<>();

	private RetryTemplate template() {
		return RetryTemplate.builder().name("inventory").virtualTime(this.time).maxAttempts(5)
			.backoff(BackoffPolicy.fixed(Duration.ofMillis(100))).build();
	}

	/** A Mono that always fails, recording the deadline current where it is subscribed. */
	private Mono<String> failing() {
		return Mono.defer(() -> {
			this.seen.add(Deadline.current());
			return Mono.error(new IOException("down " + this.subscriptions.incrementAndGet()));
		});
	}

	@Test
	void theDeadlineInTheSubscribersContextStopsResubscriptionsThatWouldEndAfterIt() {
		RetryTemplate template = template();
		Deadline deadline = Deadline.after(Duration.ofMillis(250), this.time);
		StepVerifier.create(failing().transformDeferred(RetryOperator.of(template))
			.contextWrite(Context.of(Deadline.class, deadline)))
			.then(() -> this.time.advance(Duration.ofSeconds(1)))
			.expectErrorMessage("down 3")
			.verify(Duration.ofSeconds(5));
		assertThat(this.subscriptions).hasValue(3);
		assertThat(this.seen).containsOnly(deadline);
		assertThat(template.getMetrics().getDeadlineRejections()).isEqualTo(1);
		assertThat(Deadline.current()).isNull();
	}

	@Test
	void theDeadlineCurrentOnTheSubscribingThreadCountsToo() {
		RetryTemplate template = template();
		Deadline deadline = Deadline.after(Duration.ofMillis(150), this.time);
		Mono<String> retried = failing().transformDeferred(RetryOperator.of(template));
		try (Deadline.Scope scope = deadline.enter()) {
			retried.subscribe(value -> { }, failure -> { });
		}
		this.time.advance(Duration.ofSeconds(1));
		assertThat(this.subscriptions).hasValue(2);
		assertThat(this.seen).containsOnly(deadline);
	}

	@Test
	void aHedgedMonoStartsNoCopyAfterTheDeadlineAndEachCopySubscribesUnderIt() {
		RetryTemplate template = RetryTemplate.builder().name("search").virtualTime(this.time).maxAttempts(5)
			.hedging(HedgingConfig.builder().delay(Duration.ofMillis(100)).build()).build();
		Deadline deadline = Deadline.after(Duration.ofMillis(250), this.time);
		Mono<String> silent = Mono.defer(() -> {
			this.seen.add(Deadline.current());
			this.subscriptions.incrementAndGet();
			return Mono.never();
		});
		StepVerifier.create(silent.transformDeferred(RetryOperator.of(template))
			.contextWrite(Context.of(Deadline.class, deadline)))
			.then(() -> this.time.advance(Duration.ofSeconds(1)))
			.expectError(TimeoutException.class)
			.verify(Duration.ofSeconds(5));
		assertThat(this.subscriptions).hasValue(3);
		assertThat(this.seen).containsOnly(deadline);
	}

	@Test
	void aDeadlineThatPassedSubscribesNothing() {
		RetryTemplate template = template();
		StepVerifier.create(failing().transformDeferred(RetryOperator.of(template))
			.contextWrite(Context.of(Deadline.class, Deadline.after(Duration.ZERO, this.time))))
			.expectError(dev.retrykit.DeadlineExceededException.class)
			.verify(Duration.ofSeconds(5));
		assertThat(this.subscriptions).hasValue(0);
	}

	@Test
	void withoutADeadlineEveryAttemptRuns() {
		RetryTemplate template = template();
		StepVerifier.create(failing().transformDeferred(RetryOperator.of(template)))
			.then(() -> this.time.advance(Duration.ofSeconds(1)))
			.expectErrorMessage("down 5")
			.verify(Duration.ofSeconds(5));
		assertThat(this.seen).containsOnlyNulls();
	}

}
