package dev.retrykit;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import dev.retrykit.context.RetryContext;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Synchronous calls whose decision runs user code that throws (result predicate, classifier, policy,
 * backoff, rollback classifier): the call ends with that exception, counted, with its listeners closed.
 */
class RetryTemplateThrowingDecisionTests {

	private final VirtualTime time = new VirtualTime();

	private final List<@Nullable Throwable> closed = new CopyOnWriteArrayList<>();

	private final IllegalStateException broken = new IllegalStateException("user code failed");

	private final IOException down = new IOException("down");

	private final RetryListener closing = new RetryListener() {
		@Override
		public void close(RetryContext context, @Nullable Throwable failure) {
			RetryTemplateThrowingDecisionTests.this.closed.add(failure);
		}
	};

	private String failing(RetryContext context) throws IOException {
		throw this.down;
	}

	@Test
	void aResultPredicateThatThrowsEndsTheCallAndClosesTheListeners() {
		RetryTemplate template = RetryTemplate.builder().virtualTime(this.time).listener(this.closing)
			.retryOnResult(result -> {
				throw this.broken;
			}).build();
		assertThatThrownBy(() -> template.execute(context -> "value")).isSameAs(this.broken);
		assertThat(this.closed).containsExactly(this.broken);
		assertThat(template.getMetrics().getFailedCallsWithoutRetry()).isEqualTo(1);
	}

	@Test
	void aPolicyThatThrowsEndsTheCallWithTheAttemptsFailureSuppressed() {
		RetryTemplate template = RetryTemplate.builder().virtualTime(this.time).listener(this.closing)
			.policy(context -> {
				throw this.broken;
			}).build();
		assertThatThrownBy(() -> template.execute(this::failing)).isSameAs(this.broken);
		assertThat(this.broken.getSuppressed()).containsExactly(this.down);
		assertThat(this.closed).containsExactly(this.broken);
		assertThat(template.getMetrics().getFailedCallsWithoutRetry()).isEqualTo(1);
	}

	@Test
	void aClassifierThatThrowsOnALaterAttemptCountsACallFailedWithRetry() {
		RetryTemplate template = RetryTemplate.builder().virtualTime(this.time).listener(this.closing)
			.config(RetryConfig.builder().maxAttempts(5).retryIf(failure -> {
				if (this.time.sleeps().size() == 2) {
					throw this.broken;
				}
				return true;
			}).build())
			.build();
		assertThatThrownBy(() -> template.execute(this::failing)).isSameAs(this.broken);
		assertThat(this.closed).containsExactly(this.broken);
		assertThat(template.getMetrics().getFailedCallsWithRetry()).isEqualTo(1);
	}

	@Test
	void aBackoffThatThrowsOnTheShortPathCountsTheCallAsFailed() {
		// No listener, deadline, breaker, budget or result predicate: the first attempt takes the short path.
		RetryTemplate template = RetryTemplate.builder().virtualTime(this.time).backoff(() -> {
			throw this.broken;
		}).build();
		assertThatThrownBy(() -> template.execute(this::failing)).isSameAs(this.broken);
		assertThat(this.broken.getSuppressed()).containsExactly(this.down);
		assertThat(template.getMetrics().getFailedCallsWithoutRetry()).isEqualTo(1);
	}

	@Test
	void aStatefulCallWhosePolicyThrowsEndsWithItAndClosesTheListeners() {
		RetryTemplate template = RetryTemplate.builder().virtualTime(this.time).listener(this.closing)
			.policy(context -> {
				throw this.broken;
			}).build();
		assertThatThrownBy(() -> template.execute(this::failing, RetryState.of("k"))).isSameAs(this.broken);
		assertThat(this.closed).containsExactly(this.broken);
		assertThat(template.getMetrics().getFailedCallsWithoutRetry()).isEqualTo(1);
	}

	@Test
	void aStatefulCallWhoseRollbackClassifierThrowsEndsWithItAndClosesTheListeners() {
		RetryTemplate template = RetryTemplate.builder().virtualTime(this.time).listener(this.closing).build();
		RetryState state = new RetryState("k", false, failure -> {
			throw this.broken;
		});
		assertThatThrownBy(() -> template.execute(this::failing, state)).isSameAs(this.broken);
		assertThat(this.closed).containsExactly(this.broken);
		assertThat(template.getMetrics().getFailedCallsWithoutRetry()).isEqualTo(1);
	}

	@Test
	void aStatefulCallWhoseResultPredicateThrowsEndsWithItAndClosesTheListeners() {
		RetryTemplate template = RetryTemplate.builder().virtualTime(this.time).listener(this.closing)
			.retryOnResult(result -> {
				throw this.broken;
			}).build();
		assertThatThrownBy(() -> template.execute(context -> "value", RetryState.of("k"))).isSameAs(this.broken);
		assertThat(this.closed).containsExactly(this.broken);
		assertThat(template.getMetrics().getFailedCallsWithoutRetry()).isEqualTo(1);
	}

}
