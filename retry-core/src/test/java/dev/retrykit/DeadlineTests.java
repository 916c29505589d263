package dev.retrykit;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

/**
 * The rules of {@link Deadline} itself, in virtual time: time left, scoping on a thread (nesting keeps
 * the sooner deadline, closing restores the one before), clamping of absurd timeouts, and wrapping a
 * task for another thread.
 */
class DeadlineTests {

	private final VirtualTime time = new VirtualTime();

	@Test
	void remainingCountsDownOnItsClockAndStopsAtZero() {
		Deadline deadline = Deadline.after(Duration.ofMillis(300), this.time);
		assertThat(deadline.remaining()).isEqualTo(Duration.ofMillis(300));
		this.time.advance(Duration.ofMillis(100));
		assertThat(deadline.remainingNanos()).isEqualTo(Duration.ofMillis(200).toNanos());
		assertThat(deadline.isExpired()).isFalse();
		this.time.advance(Duration.ofMillis(250));
		assertThat(deadline.remaining()).isEqualTo(Duration.ZERO);
		assertThat(deadline.remainingNanos()).isEqualTo(-Duration.ofMillis(50).toNanos());
		assertThat(deadline.isExpired()).isTrue();
		assertThat(deadline).hasToString("Deadline[passed PT0.05S ago]");
	}

	@Test
	void aZeroOrNegativeTimeoutHasPassedAlready() {
		assertThat(Deadline.after(Duration.ZERO, this.time).isExpired()).isTrue();
		assertThat(Deadline.after(Duration.ofSeconds(-5), this.time).remainingNanos()).isZero();
	}

	@Test
	void anAbsurdTimeoutIsClampedSoThatNothingOverflows() {
		Deadline forever = Deadline.after(Duration.ofSeconds(Long.MAX_VALUE), this.time);
		assertThat(forever.remainingNanos()).isEqualTo(Long.MAX_VALUE / 2);
		this.time.advance(Duration.ofDays(365));
		assertThat(forever.isExpired()).isFalse();
		assertThat(forever.remainingNanos()).isPositive();
	}

	@Test
	void aScopeMakesItCurrentOnThisThreadUntilItCloses() {
		Deadline deadline = Deadline.after(Duration.ofSeconds(1), this.time);
		assertThat(Deadline.current()).isNull();
		try (Deadline.Scope scope = deadline.enter()) {
			assertThat(Deadline.current()).isSameAs(deadline);
		}
		assertThat(Deadline.current()).isNull();
	}

	@Test
	void nestingKeepsTheSoonerAndClosingRestoresTheOuter() {
		Deadline outer = Deadline.after(Duration.ofMillis(500), this.time);
		Deadline sooner = Deadline.after(Duration.ofMillis(100), this.time);
		Deadline later = Deadline.after(Duration.ofSeconds(5), this.time);
		try (Deadline.Scope outerScope = outer.enter()) {
			try (Deadline.Scope inner = later.enter()) {
				assertThat(Deadline.current()).isSameAs(outer);
			}
			try (Deadline.Scope inner = sooner.enter()) {
				assertThat(Deadline.current()).isSameAs(sooner);
			}
			assertThat(Deadline.current()).isSameAs(outer);
		}
		assertThat(Deadline.current()).isNull();
	}

	@Test
	void aSecondCloseDoesNothing() {
		Deadline outer = Deadline.after(Duration.ofMillis(500), this.time);
		try (Deadline.Scope outerScope = outer.enter()) {
			Deadline.Scope inner = Deadline.after(Duration.ofMillis(100), this.time).enter();
			inner.close();
			inner.close();
			assertThat(Deadline.current()).isSameAs(outer);
		}
	}

	@Test
	void earliestPicksTheOneWithLessTimeLeft() {
		Deadline soon = Deadline.after(Duration.ofMillis(10), this.time);
		Deadline late = Deadline.after(Duration.ofMillis(20), this.time);
		assertThat(Deadline.earliest(soon, late)).isSameAs(soon);
		assertThat(Deadline.earliest(late, soon)).isSameAs(soon);
		assertThat(Deadline.earliest(null, late)).isSameAs(late);
		assertThat(Deadline.earliest(soon, null)).isSameAs(soon);
		assertThat(Deadline.earliest(null, null)).isNull();
	}

	@Test
	void runCallAndWrapRunUnderTheDeadlineWhereverTheyRun() throws Exception {
		Deadline deadline = Deadline.after(Duration.ofSeconds(1), this.time);
		AtomicReference<Deadline> seen = new AtomicReference<>();
		deadline.run(() -> seen.set(Deadline.current()));
		assertThat(seen.get()).isSameAs(deadline);
		assertThat(deadline.call(Deadline::current)).isSameAs(deadline);
		Runnable wrapped = deadline.wrap(() -> seen.set(Deadline.current()));
		seen.set(null);
		Thread other = new Thread(wrapped);
		other.start();
		other.join();
		assertThat(seen.get()).isSameAs(deadline);
		assertThat(Deadline.current()).isNull();
	}

	@Test
	void nullArgumentsAreRefusedByName() {
		assertThatNullPointerException().isThrownBy(() -> Deadline.after(null)).withMessageContaining("timeout");
		assertThatNullPointerException().isThrownBy(() -> Deadline.after(Duration.ZERO, null))
			.withMessageContaining("timeSource");
		Deadline deadline = Deadline.after(Duration.ZERO, this.time);
		assertThatNullPointerException().isThrownBy(() -> deadline.wrap(null)).withMessageContaining("task");
	}

}
