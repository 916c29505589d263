package dev.retrykit.spring.boot.convert;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class CompoundDurationConverterTests {

	private final CompoundDurationConverter converter = new CompoundDurationConverter();

	@ParameterizedTest
	@CsvSource({ "200ms, PT0.2S", "1m30s, PT1M30S", "1h30m, PT1H30M", "2h45m30s500ms, PT2H45M30.5S", "1.5s, PT1.5S",
			"-2s, PT-2S", "1d, PT24H", "10us, PT0.00001S", "10µs, PT0.00001S", "300ns, PT0.0000003S", "' 5s ', PT5S" })
	void readsGoStyleDurations(String text, Duration expected) {
		assertThat(this.converter.convert(text)).isEqualTo(expected);
	}

	@ParameterizedTest
	@ValueSource(strings = { "100", "PT1M30S", "ten seconds", "1x", "s", "" })
	void leavesOtherFormsToBootsConversion(String text) {
		assertThatIllegalArgumentException().isThrownBy(() -> this.converter.convert(text))
			.withMessageContaining("Invalid duration (" + text + ")")
			.withMessageContaining("1m30s, 1h30m");
	}

	@Test
	void formatsDurationsTheWayUsersWriteThem() {
		assertThat(CompoundDurationConverter.format(Duration.ofSeconds(90))).isEqualTo("1m30s");
		assertThat(CompoundDurationConverter.format(Duration.ofMillis(200))).isEqualTo("200ms");
		assertThat(CompoundDurationConverter.format(Duration.ofSeconds(-1))).isEqualTo("-1s");
		assertThat(CompoundDurationConverter.format(Duration.ZERO)).isEqualTo("0s");
		assertThat(CompoundDurationConverter.format(Duration.ofHours(25))).isEqualTo("1d1h");
	}

}
