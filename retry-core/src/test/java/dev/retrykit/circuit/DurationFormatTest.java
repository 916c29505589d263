package dev.retrykit.circuit;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class DurationFormatTest {

	@Test
	void exactValuesUseTheLargestUnitThatDividesThem() {
		assertThat(DurationFormat.exact(Duration.ZERO)).isEqualTo("0s");
		assertThat(DurationFormat.exact(Duration.ofHours(2))).isEqualTo("2h");
		assertThat(DurationFormat.exact(Duration.ofMinutes(90))).isEqualTo("90m");
		assertThat(DurationFormat.exact(Duration.ofSeconds(90))).isEqualTo("90s");
		assertThat(DurationFormat.exact(Duration.ofMillis(250))).isEqualTo("250ms");
		assertThat(DurationFormat.exact(Duration.ofNanos(1_500_000))).isEqualTo("1500us");
		assertThat(DurationFormat.exact(Duration.ofNanos(7))).isEqualTo("7ns");
		assertThat(DurationFormat.exact(Duration.ofSeconds(-3))).isEqualTo("-3s");
	}

	@Test
	void remainingTimesRoundUp() {
		assertThat(DurationFormat.remaining(0)).isEqualTo("0s");
		assertThat(DurationFormat.remaining(1)).isEqualTo("1ms");
		assertThat(DurationFormat.remaining(250_000_000)).isEqualTo("250ms");
		assertThat(DurationFormat.remaining(999_999_999)).isEqualTo("1s");
		assertThat(DurationFormat.remaining(Duration.ofMillis(12_300).toNanos())).isEqualTo("12.3s");
		assertThat(DurationFormat.remaining(Duration.ofMillis(12_301).toNanos())).isEqualTo("12.4s");
		assertThat(DurationFormat.remaining(Duration.ofSeconds(60).toNanos())).isEqualTo("1m");
		assertThat(DurationFormat.remaining(Duration.ofMillis(65_200).toNanos())).isEqualTo("1m5.2s");
		assertThat(DurationFormat.remaining(Duration.ofMinutes(61).toNanos())).isEqualTo("1h1m");
		assertThat(DurationFormat.remaining(Duration.ofSeconds(3).toNanos())).isEqualTo("3s");
	}

}
