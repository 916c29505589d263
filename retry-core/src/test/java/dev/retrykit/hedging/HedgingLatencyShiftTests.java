package dev.retrykit.hedging;

import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.retrykit.RetryTemplate;
import dev.retrykit.VirtualTime;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A simulation in virtual time of what issue 37 measured: an adaptive instance at steady state (a call
 * every millisecond, log-normal latency, median 2 ms) whose downstream suddenly gets ten times slower
 * (median 20 ms). While the adaptive delay catches up, every call is slower than the delay; the extra
 * copies the 200 calls after the shift send stay within {@code max-extra-load} of them (and of the calls
 * of the 20 ms before the shift) plus the reserve.
 */
class HedgingLatencyShiftTests {

	private static final int WARM_UP = 5000;

	private static final int AFTER_SHIFT = 200;

	private final VirtualTime time = new VirtualTime();

	private final SplittableRandom random = new SplittableRandom(37);

	private long latencyNanos(double medianMillis) {
		double gaussian = Math.sqrt(-2 * Math.log(1 - this.random.nextDouble()))
				* Math.cos(2 * Math.PI * this.random.nextDouble());
		return (long) (medianMillis * Math.exp(0.5 * gaussian) * 1_000_000);
	}

	@Test
	void theCallsAfterALatencyShiftSendNoMoreThanMaxExtraLoadOfThemPlusTheReserve() {
		RetryTemplate template = RetryTemplate.builder().name("search").virtualTime(this.time).maxAttempts(3)
			.hedging(HedgingConfig.builder().quantile(0.95).build()).build();
		int calls = WARM_UP + AFTER_SHIFT;
		int[] sent = new int[calls];
		for (int i = 0; i < calls; i++) {
			int call = i;
			double median = (i < WARM_UP) ? 2 : 20;
			CompletableFuture<String> future = template.executeAsync(() -> {
				sent[call]++;
				CompletableFuture<String> copy = new CompletableFuture<>();
				this.time.schedule(() -> copy.complete("ok"), latencyNanos(median), TimeUnit.NANOSECONDS);
				return copy;
			});
			assertThat(future).isNotNull();
			this.time.advance(Duration.ofMillis(1));
		}
		this.time.advance(Duration.ofSeconds(5));

		long steadyExtra = 0;
		for (int i = WARM_UP / 2; i < WARM_UP; i++) {
			steadyExtra += sent[i] - 1;
		}
		long shiftExtra = 0;
		for (int i = WARM_UP; i < calls; i++) {
			shiftExtra += sent[i] - 1;
		}
		double steadyShare = (double) steadyExtra / (WARM_UP / 2);
		System.out.printf("latency shift 2 -> 20 ms: steady-state extra load %.2f %%, extra copies of the %d calls after"
				+ " the shift %d (%.1f %%), delay now %s%n", 100 * steadyShare, AFTER_SHIFT, shiftExtra,
				100.0 * shiftExtra / AFTER_SHIFT, template.getHedgingDelay());
		// The bound: max-extra-load of the calls after the shift and of those of the 20 ms before it (whose share
		// a fan-out may still spend), plus the reserve (10, and one per second).
		assertThat(shiftExtra).isLessThanOrEqualTo((long) (HedgingConfig.DEFAULT_MAX_EXTRA_LOAD * (AFTER_SHIFT + 20)) + 10 + 1);
		assertThat(steadyShare).isGreaterThan(0.01).isLessThan(0.1);
	}

}
