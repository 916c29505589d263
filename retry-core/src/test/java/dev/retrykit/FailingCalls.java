package dev.retrykit;

import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Calls that fail every attempt, for tests that count how often a template tries. */
final class FailingCalls {

	private FailingCalls() {
	}

	/**
	 * Runs a call that throws {@code failure} on every attempt and returns how many attempts the
	 * template made. Fails the test unless the call ends by rethrowing that very failure.
	 */
	static int attemptsFor(RetryTemplate template, Throwable failure) {
		AtomicInteger calls = new AtomicInteger();
		assertThatThrownBy(() -> template.execute(context -> {
			calls.incrementAndGet();
			throw failure;
		})).isSameAs(failure);
		return calls.get();
	}

}
