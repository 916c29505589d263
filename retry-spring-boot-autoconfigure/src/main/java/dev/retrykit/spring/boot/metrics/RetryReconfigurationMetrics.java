package dev.retrykit.spring.boot.metrics;

import java.util.Objects;
import java.util.function.LongSupplier;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * The counter {@code retry.reconfigurations}, tag {@code result} = {@code applied} | {@code rejected}:
 * live changes of the retry configuration, read from the counts of whatever applies them (the starter's
 * {@code RetryReconfigurer}). Thread-safe.
 */
public final class RetryReconfigurationMetrics implements MeterBinder {

	private final LongSupplier applied;

	private final LongSupplier rejected;

	/**
	 * @param applied how many changes were applied
	 * @param rejected how many changes were rejected as invalid
	 */
	public RetryReconfigurationMetrics(LongSupplier applied, LongSupplier rejected) {
		this.applied = Objects.requireNonNull(applied, "applied must not be null");
		this.rejected = Objects.requireNonNull(rejected, "rejected must not be null");
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		counter(registry, "applied", this.applied);
		counter(registry, "rejected", this.rejected);
	}

	private static void counter(MeterRegistry registry, String result, LongSupplier count) {
		FunctionCounter.builder("retry.reconfigurations", count, LongSupplier::getAsLong)
			.tag("result", result)
			.description("Live changes of the retry configuration, applied or rejected as invalid")
			.register(registry);
	}

}
