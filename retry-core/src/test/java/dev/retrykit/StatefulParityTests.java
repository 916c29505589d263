package dev.retrykit;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.testing.Concurrently;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Stateful retry exactly as Spring Retry's users rely on it (DESIGN.md, "Stateful retry"), and a count
 * that concurrent calls on one key never lose.
 */
class StatefulParityTests {

	private final VirtualTime time = new VirtualTime();

	private final AtomicInteger attempts = new AtomicInteger();

	private final RetryTemplate template = RetryTemplate.builder().name("orders").virtualTime(this.time).maxAttempts(3)
		.ignore(IllegalArgumentException.class).backoff(BackoffPolicy.none()).build();

	private String failing(Throwable failure) throws Throwable {
		this.attempts.incrementAndGet();
		throw failure;
	}

	@Test
	void theLastAllowedAttemptsFailureIsRethrownAndTheNextCallRecoversWithoutRunningTheOperation() throws Throwable {
		RetryState state = RetryState.of("message-1");
		IOException third = new IOException("third");
		for (IOException failure : new IOException[] { new IOException("first"), new IOException("second"), third }) {
			assertThatThrownBy(() -> this.template.execute(context -> failing(failure), context -> "recovered", state))
				.isSameAs(failure);
		}
		assertThat(this.template.getContextCache().size()).isEqualTo(1);
		assertThat(this.template.getContextCache().entries(1).get(0).context().isExhaustedOnly()).isTrue();

		String result = this.template.execute(context -> failing(new IOException("never")), context -> {
			assertThat(context.getLastThrowable()).isSameAs(third);
			return "recovered";
		}, state);

		assertThat(result).isEqualTo("recovered");
		assertThat(this.attempts).hasValue(3);
		assertThat(this.template.getContextCache().size()).isZero();
	}

	@Test
	void aNonRetryableFailureIsRethrownInItsCallWithoutRecoveryAndTheNextCallRecovers() throws Throwable {
		RetryState state = RetryState.of("poison");
		IllegalArgumentException poison = new IllegalArgumentException("poison");
		AtomicInteger recoveries = new AtomicInteger();
		assertThatThrownBy(() -> this.template.execute(context -> failing(poison), context -> {
			recoveries.incrementAndGet();
			return "recovered";
		}, state)).isSameAs(poison);
		assertThat(recoveries).hasValue(0);

		String result = this.template.execute(context -> failing(poison), context -> {
			recoveries.incrementAndGet();
			return "dead-lettered";
		}, state);

		assertThat(result).isEqualTo("dead-lettered");
		assertThat(this.attempts).hasValue(1);
		assertThat(recoveries).hasValue(1);
		assertThat(this.template.getContextCache().size()).isZero();
	}

	@Test
	void withoutRecoveryTheNextCallAfterANonRetryableFailureThrowsExhaustedWithThatFailureAsCause() throws Throwable {
		RetryState state = RetryState.of("poison");
		IllegalArgumentException poison = new IllegalArgumentException("poison");
		assertThatThrownBy(() -> this.template.execute(context -> failing(poison), state)).isSameAs(poison);
		assertThatThrownBy(() -> this.template.execute(context -> failing(poison), state))
			.isInstanceOf(ExhaustedRetryException.class).hasCause(poison);
		assertThat(this.attempts).hasValue(1);
		assertThat(this.template.getContextCache().size()).isZero();
	}

	@Test
	void aFailureThatIsNotRolledBackIsRetriedAndRecoveredWithinTheSameCall() throws Throwable {
		RetryState state = new RetryState("message-2", false, failure -> !(failure instanceof IOException));
		String result = this.template.execute(context -> failing(new IOException("down")), context -> "recovered", state);
		assertThat(result).isEqualTo("recovered");
		assertThat(this.attempts).hasValue(3);
		assertThat(this.template.getContextCache().size()).isZero();
	}

	@Test
	void aNonRetryableFailureThatIsNotRolledBackIsRecoveredWithinTheSameCall() throws Throwable {
		RetryState state = new RetryState("message-3", false, failure -> !(failure instanceof IllegalArgumentException));
		String result = this.template.execute(context -> failing(new IllegalArgumentException("bad")),
				context -> "recovered", state);
		assertThat(result).isEqualTo("recovered");
		assertThat(this.attempts).hasValue(1);
		assertThat(this.template.getContextCache().size()).isZero();
	}

	@Test
	void aFailureThatIsNotRolledBackIsRethrownUnchangedWhenExhaustedWithoutRecovery() {
		IOException down = new IOException("down");
		RetryState state = new RetryState("message-4", false, failure -> false);
		assertThatThrownBy(() -> this.template.execute(context -> failing(down), state)).isSameAs(down);
		assertThat(this.attempts).hasValue(3);
		assertThat(this.template.getContextCache().size()).isZero();
	}

	@Test
	void concurrentCallsOnOneKeyNeverLoseACount() throws Exception {
		RetryTemplate unlimited = RetryTemplate.builder().name("stress").virtualTime(this.time).maxAttempts(-1)
			.backoff(BackoffPolicy.none()).build();
		RetryState state = RetryState.of("shared");
		int threads = 16;
		int callsPerThread = 500;
		IOException down = new IOException("down");
		Concurrently.run(threads, index -> {
			for (int i = 0; i < callsPerThread; i++) {
				try {
					unlimited.execute(context -> {
						throw down;
					}, state);
				}
				catch (IOException expected) {
					// each call rethrows its failure for the caller to roll back
				}
			}
		});
		assertThat(unlimited.getContextCache().entries(1).get(0).context().getRetryCount())
			.isEqualTo(threads * callsPerThread);
	}

}
