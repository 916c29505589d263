package dev.retrykit.text;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class DurationsTests {

	@Test
	void formatsEachNonZeroPartLargestFirst() {
		assertThat(Durations.format(Duration.ofMillis(100))).isEqualTo("100ms");
		assertThat(Durations.format(Duration.ofSeconds(2))).isEqualTo("2s");
		assertThat(Durations.format(Duration.ofSeconds(90))).isEqualTo("1m30s");
		assertThat(Durations.format(Duration.ofMillis(1500))).isEqualTo("1s500ms");
		assertThat(Durations.format(Duration.ofHours(26))).isEqualTo("1d2h");
		assertThat(Durations.format(Duration.ofNanos(1500))).isEqualTo("1us500ns");
	}

	@Test
	void formatsZeroAndNegativeDurations() {
		assertThat(Durations.format(Duration.ZERO)).isEqualTo("0s");
		assertThat(Durations.format(Duration.ofSeconds(-1))).isEqualTo("-1s");
		assertThat(Durations.format(Duration.ofMillis(-1500))).isEqualTo("-1s500ms");
	}

	@Test
	void formatsDurationsBeyondLongNanos() {
		assertThat(Durations.format(Duration.ofSeconds(Long.MAX_VALUE))).endsWith("7s");
		assertThat(Durations.format(Duration.ofSeconds(Long.MIN_VALUE))).isEqualTo("PT-2562047788015215H-30M-8S");
	}

	@Test
	void remainingTimesRoundUp() {
		assertThat(Durations.remaining(0)).isEqualTo("0s");
		assertThat(Durations.remaining(1)).isEqualTo("1ms");
		assertThat(Durations.remaining(250_000_000)).isEqualTo("250ms");
		assertThat(Durations.remaining(999_999_999)).isEqualTo("1s");
		assertThat(Durations.remaining(Duration.ofMillis(12_300).toNanos())).isEqualTo("12.3s");
		assertThat(Durations.remaining(Duration.ofMillis(12_301).toNanos())).isEqualTo("12.4s");
		assertThat(Durations.remaining(Duration.ofSeconds(60).toNanos())).isEqualTo("1m");
		assertThat(Durations.remaining(Duration.ofMillis(65_200).toNanos())).isEqualTo("1m5.2s");
		assertThat(Durations.remaining(Duration.ofMinutes(61).toNanos())).isEqualTo("1h1m");
		assertThat(Durations.remaining(Duration.ofSeconds(3).toNanos())).isEqualTo("3s");
	}

	@Test
	void measuredDurationsAreRoundedToWhatMattersAtTheirSize() {
		assertThat(Durations.approximate(Duration.ofNanos(5_514_199))).isEqualTo("6ms");
		assertThat(Durations.approximate(Duration.ofNanos(5_414_199))).isEqualTo("5ms");
		assertThat(Durations.approximate(Duration.ofMillis(100))).isEqualTo("100ms");
		assertThat(Durations.approximate(Duration.ofNanos(750_400))).isEqualTo("750us");
		assertThat(Durations.approximate(Duration.ofMillis(999_600))).isEqualTo("16m40s");
		assertThat(Durations.approximate(Duration.ofMillis(1460))).isEqualTo("1.5s");
		assertThat(Durations.approximate(Duration.ofMillis(12_000))).isEqualTo("12s");
		assertThat(Durations.approximate(Duration.ofMillis(59_980))).isEqualTo("1m");
		assertThat(Durations.approximate(Duration.ofMinutes(2))).isEqualTo("2m");
		assertThat(Durations.approximate(Duration.ofSeconds(3900))).isEqualTo("1h5m");
		assertThat(Durations.approximate(Duration.ofMillis(999_700).negated())).isEqualTo("-16m40s");
		assertThat(Durations.approximate(Duration.ZERO)).isEqualTo("0s");
	}

}
