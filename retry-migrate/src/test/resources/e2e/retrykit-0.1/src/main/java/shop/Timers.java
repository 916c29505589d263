package shop;

import java.time.Duration;

import dev.retrykit.async.TimingWheelScheduler;
import dev.retrykit.async.TimingWheelSchedulerBuilder;

class Timers {

	TimingWheelScheduler scheduler() {
		TimingWheelSchedulerBuilder builder = TimingWheelScheduler.builder().tick(Duration.ofMillis(10));
		return builder.build();
	}

}
