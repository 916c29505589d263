package dev.retrykit.spring.boot.http;

import java.time.Duration;

import dev.retrykit.Deadline;
import dev.retrykit.VirtualTime;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** How the headers that cross hops read and write their values. */
class HopHeadersTests {

	private final VirtualTime time = new VirtualTime();

	private final HopHeaders headers = HopHeaders.of("X-Retry-Exhausted", "X-Request-Timeout", this.time);

	@Test
	void readsWholeMillisecondsAndClampsToAnHour() {
		assertThat(this.headers.deadline("1500").remaining()).isEqualTo(Duration.ofMillis(1500));
		assertThat(this.headers.deadline(" 20 ").remaining()).isEqualTo(Duration.ofMillis(20));
		assertThat(this.headers.deadline("0").isExpired()).isTrue();
		assertThat(this.headers.deadline("3600001").remaining()).isEqualTo(HopHeaders.MAX_TIMEOUT);
		assertThat(this.headers.deadline("9".repeat(400)).remaining()).isEqualTo(HopHeaders.MAX_TIMEOUT);
	}

	@Test
	void ignoresWhatIsNotANonNegativeNumberOfMilliseconds() {
		for (String malformed : new String[] { "", " ", "-5", "+5", "1.5", "1e3", "soon", "12ms", "0x10", "١٢" }) {
			assertThat(this.headers.deadline(malformed)).as(malformed).isNull();
		}
		assertThat(this.headers.deadline(null)).isNull();
	}

	@Test
	void writesTheWholeMillisecondsLeftAndNothingWhenLessThanOneIs() {
		Deadline deadline = Deadline.after(Duration.ofMillis(1000), this.time);
		assertThat(HopHeaders.millisLeft(deadline)).isEqualTo(1000);
		this.time.advance(Duration.ofNanos(999_500_000));
		assertThat(HopHeaders.millisLeft(deadline)).isEqualTo(-1);
	}

	@Test
	void headerNamesAreHttpTokens() {
		assertThat(HopHeaders.isToken("X-Retry-Exhausted")).isTrue();
		assertThat(HopHeaders.isToken("x_b!#$%&'*+-.^`|~9")).isTrue();
		for (String name : new String[] { "", "X Retry", "X-Retry:", "X(Retry)", "Ré", "X\tY" }) {
			assertThat(HopHeaders.isToken(name)).as(name).isFalse();
		}
		assertThatIllegalArgumentException().isThrownBy(() -> HopHeaders.of("X Retry", "X-Request-Timeout", this.time))
			.withMessageContaining("HTTP token");
	}

}
