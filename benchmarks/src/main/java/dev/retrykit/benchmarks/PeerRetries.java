package dev.retrykit.benchmarks;

import java.time.Duration;

import dev.failsafe.Failsafe;
import dev.failsafe.FailsafeExecutor;
import dev.failsafe.RetryPolicy;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The peer libraries' retryers (Spring Retry's twice: its classic configuration, its fastest, and its
 * builder's), each configured the same way: 3 attempts in all, no delay between
 * them, every exception retried. Shared by all benchmark threads, as an application shares one
 * instance per downstream service; all are thread-safe once built.
 *
 * <p>{@link #checkEveryPeerRetries()} runs once per trial, before measurement.
 */
@State(Scope.Benchmark)
public class PeerRetries {

	/** Attempts in all, the first one included. */
	static final int MAX_ATTEMPTS = 3;

	/**
	 * Spring Retry's classic configuration, its fastest: {@code new RetryTemplate()} with a
	 * {@code SimpleRetryPolicy(3)} (which retries every {@link Exception}) and a {@code NoBackOffPolicy}.
	 */
	final org.springframework.retry.support.RetryTemplate springRetryClassic = springRetryClassic();

	/**
	 * Spring Retry's template from its builder, which wraps the policy in a {@code CompositeRetryPolicy}
	 * (it costs more than the classic one); its default classifier retries every {@link Exception}.
	 */
	final org.springframework.retry.support.RetryTemplate springRetryBuilder = org.springframework.retry.support.RetryTemplate
		.builder()
		.maxAttempts(MAX_ATTEMPTS)
		.noBackoff()
		.build();

	/** Spring Framework 7's template; its policy counts retries, not attempts, and defaults to a 1s delay. */
	final org.springframework.core.retry.RetryTemplate springFramework = new org.springframework.core.retry.RetryTemplate(
			org.springframework.core.retry.RetryPolicy.builder()
				.maxRetries(MAX_ATTEMPTS - 1)
				.delay(Duration.ZERO)
				.build());

	/** Resilience4j's retry; it defaults to a 500ms wait. */
	final Retry resilience4j = resilience4jRetry();

	/** Failsafe's executor for a retry policy alone. */
	final FailsafeExecutor<Object> failsafe = Failsafe.with(failsafeRetryPolicy());

	/** @return a new Spring Retry template configured the classic way: 3 attempts, no back-off */
	static org.springframework.retry.support.RetryTemplate springRetryClassic() {
		org.springframework.retry.support.RetryTemplate template = new org.springframework.retry.support.RetryTemplate();
		template.setRetryPolicy(new org.springframework.retry.policy.SimpleRetryPolicy(MAX_ATTEMPTS));
		template.setBackOffPolicy(new org.springframework.retry.backoff.NoBackOffPolicy());
		return template;
	}

	/** @return a new Resilience4j retry with 3 attempts and no wait */
	static Retry resilience4jRetry() {
		return Retry.of("bench", RetryConfig.custom()
			.maxAttempts(MAX_ATTEMPTS)
			.waitDuration(Duration.ZERO)
			.retryExceptions(Exception.class)
			.build());
	}

	/**
	 * @return a new Failsafe retry policy with 3 attempts and no delay (Failsafe's default delay is
	 * zero, and its builder rejects an explicit zero)
	 */
	static RetryPolicy<Object> failsafeRetryPolicy() {
		return RetryPolicy.builder()
			.withMaxAttempts(MAX_ATTEMPTS)
			.handle(Exception.class)
			.build();
	}

	/** Fails the trial unless each peer retries a call that fails twice to success on attempt 3. */
	@Setup
	public void checkEveryPeerRetries() {
		SelfCheck.requireThreeAttempts("Hand-written loop", call -> HandWrittenRetryLoop.call(call, MAX_ATTEMPTS));
		SelfCheck.requireThreeAttempts("Spring Retry RetryTemplate, classic",
				call -> this.springRetryClassic.execute(ctx -> call.call()));
		SelfCheck.requireThreeAttempts("Spring Retry RetryTemplate, builder",
				call -> this.springRetryBuilder.execute(ctx -> call.call()));
		SelfCheck.requireThreeAttempts("Spring Framework core.retry RetryTemplate",
				call -> this.springFramework.execute(call::call));
		SelfCheck.requireThreeAttempts("Resilience4j Retry", this.resilience4j::executeCallable);
		SelfCheck.requireThreeAttempts("Failsafe RetryPolicy", call -> this.failsafe.get(call::call));
	}

}
