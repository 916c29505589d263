package dev.retrykit.benchmarks;

import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

import dev.retrykit.RetryCallback;
import dev.retrykit.RetryTemplate;
import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.spring.boot.observation.RetryObservationListener;
import io.github.resilience4j.micrometer.Timer;
import io.github.resilience4j.micrometer.tagged.TaggedRetryMetrics;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryRegistry;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.ObservationRegistry;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The price of observing a successful call, in one run against Resilience4j's Micrometer support.
 * Every row records into a {@link SimpleMeterRegistry}; the observed ones through an
 * {@link ObservationRegistry} with Micrometer's {@link DefaultMeterObservationHandler} (a timer and a
 * long-task timer per observation), as Boot's metrics auto-configuration sets it up.
 *
 * <ul>
 * <li>{@code retrykitPlain}: no observation registry, the starter's default without one (the listener
 * is not registered).</li>
 * <li>{@code retrykitObserved}: {@link RetryObservationListener}: a {@code retry.call} and a child
 * {@code retry.attempt} observation per call.</li>
 * <li>{@code retrykitObservedCallsOnly}: the same with {@code retry.attempt} turned off by a predicate
 * (as {@code management.observations.enable.retry.attempt=false} does): one observation per call, like
 * the last row.</li>
 * <li>{@code resilience4jTimed}: Resilience4j 2.4 has no public Observation API support (its
 * {@code Observations} helper is package-private), so its closest peer is its Micrometer {@link Timer}
 * decorator around the retry, with {@link TaggedRetryMetrics} bound.</li>
 * <li>{@code resilience4jInObservation}: the retry inside a user's own {@code Observation} (what
 * {@code @Observed} gives): one observation per call, none per attempt.</li>
 * <li>{@code handWrittenNestedObservations}: the floor of what {@code retrykitObserved} records: two
 * hand-written nested observations, {@code retry.call} and a child {@code retry.attempt} in scope
 * while the attempt runs, with the same keys (name, outcome, exception; name, hedged, exception, attempt),
 * the same registry and handlers, around a plain call.</li>
 * <li>{@code handWrittenWithConventionsAndScope}: the same two observations doing what the contract asks
 * of retrykit's on top: their keys come from {@link ObservationConvention}s that a user may replace
 * (Micrometer asks them at start and at stop), and the call is in scope while the attempt starts, so
 * that a tracer parents the attempt's span to the call's and not to a span the caller has in scope.</li>
 * </ul>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(2)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
public class ObservedCallBenchmark {

	@Benchmark
	public void retrykitPlain(Observed observed, Blackhole bh) {
		bh.consume(observed.plain.execute(observed.callback));
	}

	@Benchmark
	public void retrykitObserved(Observed observed, Blackhole bh) {
		bh.consume(observed.retrykit.execute(observed.callback));
	}

	@Benchmark
	public void retrykitObservedCallsOnly(Observed observed, Blackhole bh) {
		bh.consume(observed.retrykitCallsOnly.execute(observed.callback));
	}

	@Benchmark
	public void resilience4jTimed(Observed observed, Blackhole bh) throws Exception {
		bh.consume(observed.resilience4jTimed.call());
	}

	@Benchmark
	public void resilience4jInObservation(Observed observed, Blackhole bh) throws Exception {
		bh.consume(Observation.createNotStarted("resilience4j.call", observed.observations)
			.observeChecked(() -> observed.resilience4j.executeCallable(observed.callable)));
	}

	@Benchmark
	public void handWrittenNestedObservations(Observed observed, Blackhole bh) {
		Observation call = Observation.createNotStarted("retry.call", observed.observations)
			.contextualName("retry bench")
			.lowCardinalityKeyValue("name", "bench")
			.start();
		Observation attempt = Observation.createNotStarted("retry.attempt", observed.observations)
			.parentObservation(call)
			.contextualName("retry bench attempt")
			.lowCardinalityKeyValue("name", "bench")
			.lowCardinalityKeyValue("hedged", "false")
			.highCardinalityKeyValue("attempt", "1")
			.start();
		String result;
		try (Observation.Scope scope = attempt.openScope()) {
			result = observed.payload;
		}
		attempt.lowCardinalityKeyValue("exception", "none").stop();
		call.lowCardinalityKeyValue("outcome", "successful_without_retry").lowCardinalityKeyValue("exception", "none")
			.stop();
		bh.consume(result);
	}

	@Benchmark
	public void handWrittenWithConventionsAndScope(Observed observed, Blackhole bh) {
		FloorContext callContext = new FloorContext();
		Observation call = Observation.createNotStarted(null, CALL_CONVENTION, () -> callContext, observed.observations)
			.start();
		FloorContext attemptContext = new FloorContext();
		Observation attempt;
		try (Observation.Scope scope = call.openScope()) {
			attempt = Observation
				.createNotStarted(null, ATTEMPT_CONVENTION, () -> attemptContext, observed.observations)
				.parentObservation(call)
				.start();
		}
		String result;
		try (Observation.Scope scope = attempt.openScope()) {
			result = observed.payload;
		}
		attemptContext.ended = true;
		attempt.stop();
		callContext.ended = true;
		call.stop();
		bh.consume(result);
	}

	private static final FloorConvention CALL_CONVENTION = new FloorConvention("retry.call", "retry bench",
			KeyValues.of("name", "bench"), KeyValues.of("name", "bench", "outcome", "successful_without_retry",
					"exception", "none"), KeyValues.empty());

	private static final FloorConvention ATTEMPT_CONVENTION = new FloorConvention("retry.attempt",
			"retry bench attempt", KeyValues.of("name", "bench", "hedged", "false"),
			KeyValues.of("name", "bench", "hedged", "false", "exception", "none"), KeyValues.of("attempt", "1"));

	/** An observation's context that knows whether its observation is stopping. */
	static final class FloorContext extends Observation.Context {

		boolean ended;

	}

	/** A convention with its key values made once, as a default convention of a library's would be. */
	static final class FloorConvention implements ObservationConvention<FloorContext> {

		private final String name;

		private final String contextualName;

		private final KeyValues running;

		private final KeyValues ended;

		private final KeyValues high;

		FloorConvention(String name, String contextualName, KeyValues running, KeyValues ended, KeyValues high) {
			this.name = name;
			this.contextualName = contextualName;
			this.running = running;
			this.ended = ended;
			this.high = high;
		}

		@Override
		public String getName() {
			return this.name;
		}

		@Override
		public String getContextualName(FloorContext context) {
			return this.contextualName;
		}

		@Override
		public KeyValues getLowCardinalityKeyValues(FloorContext context) {
			return context.ended ? this.ended : this.running;
		}

		@Override
		public KeyValues getHighCardinalityKeyValues(FloorContext context) {
			return this.high;
		}

		@Override
		public boolean supportsContext(Observation.Context context) {
			return context instanceof FloorContext;
		}

	}

	/** The registries and the decorated calls, built once and shared by all threads. */
	@State(Scope.Benchmark)
	public static class Observed {

		/** Not final, so the JIT cannot fold the call into a constant. */
		String payload = "ok";

		final MeterRegistry meters = new SimpleMeterRegistry();

		final ObservationRegistry observations = ObservationRegistry.create();

		final ObservationRegistry callObservations = ObservationRegistry.create();

		final Callable<String> callable = () -> this.payload;

		final RetryCallback<String, RuntimeException> callback = context -> this.payload;

		RetryTemplate plain;

		RetryTemplate retrykit;

		RetryTemplate retrykitCallsOnly;

		Retry resilience4j;

		Callable<String> resilience4jTimed;

		@Setup
		public void setUp() {
			this.observations.observationConfig().observationHandler(new DefaultMeterObservationHandler(this.meters));
			this.plain = RetryTemplate.builder().maxAttempts(PeerRetries.MAX_ATTEMPTS).backoff(BackoffPolicy.none()).build();
			this.retrykit = RetryTemplate.builder().name("bench").maxAttempts(PeerRetries.MAX_ATTEMPTS)
				.backoff(BackoffPolicy.none()).listener(new RetryObservationListener(this.observations)).build();
			this.callObservations.observationConfig().observationHandler(new DefaultMeterObservationHandler(this.meters))
				.observationPredicate((name, context) -> !name.equals("retry.attempt"));
			this.retrykitCallsOnly = RetryTemplate.builder().name("calls-only").maxAttempts(PeerRetries.MAX_ATTEMPTS)
				.backoff(BackoffPolicy.none()).listener(new RetryObservationListener(this.callObservations)).build();
			RetryRegistry registry = RetryRegistry.of(PeerRetries.resilience4jRetry().getRetryConfig());
			this.resilience4j = registry.retry("bench");
			TaggedRetryMetrics.ofRetryRegistry(registry).bindTo(this.meters);
			Timer timer = Timer.of("bench", this.meters);
			this.resilience4jTimed = Timer.decorateCallable(timer, Retry.decorateCallable(this.resilience4j, this.callable));
			if (!"ok".equals(this.retrykit.execute(this.callback)) || this.meters.find("retry.call").timer() == null
					|| this.meters.find("retry.attempt").timer() == null) {
				throw new IllegalStateException("retrykit's observations are not recorded");
			}
		}

	}

}
