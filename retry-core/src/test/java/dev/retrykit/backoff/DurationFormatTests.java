package dev.retrykit.backoff;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The readable durations of {@code toString} and validation messages.
 */
class DurationFormatTests {

	@Test
	void formatsEachNonZeroPartLargestFirst() {
		assertThat(DurationFormat.format(Duration.ofMillis(100))).isEqualTo("100ms");
		assertThat(DurationFormat.format(Duration.ofSeconds(2))).isEqualTo("2s");
		assertThat(DurationFormat.format(Duration.ofSeconds(90))).isEqualTo("1m30s");
		assertThat(DurationFormat.format(Duration.ofMillis(1500))).isEqualTo("1s500ms");
		assertThat(DurationFormat.format(Duration.ofHours(26))).isEqualTo("1d2h");
		assertThat(DurationFormat.format(Duration.ofNanos(1500))).isEqualTo("1us500ns");
	}

	@Test
	void formatsZeroAndNegativeDurations() {
		assertThat(DurationFormat.format(Duration.ZERO)).isEqualTo("0s");
		assertThat(DurationFormat.format(Duration.ofSeconds(-1))).isEqualTo("-1s");
		assertThat(DurationFormat.format(Duration.ofMillis(-1500))).isEqualTo("-1s500ms");
	}

	@Test
	void formatsDurationsBeyondLongNanos() {
		assertThat(DurationFormat.format(Duration.ofSeconds(Long.MAX_VALUE))).endsWith("7s");
		assertThat(DurationFormat.format(Duration.ofSeconds(Long.MIN_VALUE))).isEqualTo("PT-2562047788015215H-30M-8S");
	}

}
