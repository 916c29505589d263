package dev.retrykit.scheduler;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

class TimingWheelSchedulerBuilderTests {

	@Test
	void defaultsAreTenMillisecondTicksAnd512BucketsInThreadMode() {
		try (TimingWheelScheduler wheel = TimingWheelScheduler.builder().build()) {
			assertThat(wheel.tick()).isEqualTo(Duration.ofMillis(10));
			assertThat(wheel.wheelSize()).isEqualTo(512);
			assertThat(wheel.isManual()).isFalse();
			assertThat(wheel).hasToString("TimingWheelScheduler[tick=PT0.01S, wheelSize=512, mode=thread, "
					+ "state=new, pending=0, fired=0, cancelled=0, rejected=0]");
		}
	}

	@ParameterizedTest
	@CsvSource({ "1, 1", "2, 2", "3, 4", "500, 512", "512, 512", "513, 1024", "1073741824, 1073741824" })
	void wheelSizeIsRoundedUpToAPowerOfTwo(int requested, int expected) {
		assertThat(TimingWheelSchedulerBuilder.roundedWheelSize(requested)).isEqualTo(expected);
	}

	@Test
	void wheelSizeIsReportedRounded() {
		assertThat(TimingWheelScheduler.builder().manual().wheelSize(100).build().wheelSize()).isEqualTo(128);
	}

	@Test
	void invalidWheelSizeNamesTheValueAndTheRule() {
		assertThatIllegalArgumentException().isThrownBy(() -> TimingWheelScheduler.builder().wheelSize(0))
			.withMessage("Invalid wheelSize (0): must be between 1 and 1073741824");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> TimingWheelScheduler.builder().wheelSize(1_073_741_825))
			.withMessage("Invalid wheelSize (1073741825): must be between 1 and 1073741824");
	}

	@Test
	void invalidTickNamesTheValueAndTheRule() {
		assertThatIllegalArgumentException().isThrownBy(() -> TimingWheelScheduler.builder().tick(Duration.ZERO))
			.withMessage("Invalid tick (PT0S): must be greater than zero and at most PT24H");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> TimingWheelScheduler.builder().tick(Duration.ofMillis(-1)))
			.withMessage("Invalid tick (PT-0.001S): must be greater than zero and at most PT24H");
		assertThatIllegalArgumentException().isThrownBy(() -> TimingWheelScheduler.builder().tick(Duration.ofDays(2)))
			.withMessage("Invalid tick (PT48H): must be greater than zero and at most PT24H");
	}

	@Test
	void blankThreadNameIsRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> TimingWheelScheduler.builder().threadName(" "))
			.withMessage("Invalid threadName (' '): must not be blank");
	}

	@Test
	void nullsAreRejectedWithTheSettingName() {
		TimingWheelSchedulerBuilder builder = TimingWheelScheduler.builder();
		assertThatNullPointerException().isThrownBy(() -> builder.executor(null))
			.withMessage("executor must not be null");
		assertThatNullPointerException().isThrownBy(() -> builder.timeSource(null))
			.withMessage("timeSource must not be null");
		assertThatNullPointerException().isThrownBy(() -> builder.rejectionHandler(null))
			.withMessage("rejectionHandler must not be null");
		assertThatNullPointerException().isThrownBy(() -> builder.tick(null))
			.withMessage("tick must not be null");
	}

}
