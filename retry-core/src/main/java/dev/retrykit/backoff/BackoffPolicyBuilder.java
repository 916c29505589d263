package dev.retrykit.backoff;

import java.time.Duration;
import java.util.Objects;
import java.util.function.DoubleSupplier;
import dev.retrykit.text.Durations;

/**
 * Builds a {@link BackoffPolicy}. Obtained from {@link BackoffPolicy#builder()}, which starts from the
 * defaults, or {@link BackoffPolicy#builder(BackoffPolicy)}, which starts from an existing policy so
 * that only what is set here changes.
 *
 * <p>Each setter rejects what it can judge alone (null, negative, out of range) at once;
 * {@link #build()} checks the rules that span settings. Messages name the setting, the bad value and
 * the rule, for example {@code Invalid delay (-1s): must be zero or greater}.
 *
 * <p>Not thread-safe: use a builder from one thread. The policies it builds are immutable and
 * thread-safe, and building again after more changes never affects a policy already built.
 */
public final class BackoffPolicyBuilder {

	private static final Duration LONGEST = Duration.ofNanos(Long.MAX_VALUE);

	private BackoffType type;

	private Duration delay;

	private Duration maxDelay;

	private double multiplier;

	private double jitter;

	private DoubleSupplier random;

	BackoffPolicyBuilder(BackoffPolicy base) {
		this.type = base.getType();
		this.delay = base.getDelay();
		this.maxDelay = base.getMaxDelay();
		this.multiplier = base.getMultiplier();
		this.jitter = base.getJitter();
		this.random = base.random();
	}

	/**
	 * Sets how delays are computed. Default: {@link BackoffType#EXPONENTIAL}, or the base policy's type.
	 * @param type the backoff type
	 * @return this builder
	 * @throws NullPointerException if {@code type} is {@code null}
	 */
	public BackoffPolicyBuilder type(BackoffType type) {
		this.type = Objects.requireNonNull(type, "type");
		return this;
	}

	/**
	 * Sets the base delay {@code d} of the formulas: the delay before the first retry for most types.
	 * Default: 100ms, or the base policy's delay.
	 * @param delay the delay, zero or more
	 * @return this builder
	 * @throws NullPointerException if {@code delay} is {@code null}
	 * @throws IllegalArgumentException if {@code delay} is negative or longer than
	 * {@code Long.MAX_VALUE} nanoseconds (about 292 years)
	 */
	public BackoffPolicyBuilder delay(Duration delay) {
		this.delay = checkDuration("delay", delay);
		return this;
	}

	/**
	 * Sets the maximum delay: every delay, jitter included, is capped at it, and
	 * {@link BackoffType#UNIFORM_RANDOM} draws up to it. Default: 10s, or the base policy's maximum.
	 * {@link #build()} checks that it is not shorter than the delay.
	 * @param maxDelay the maximum delay, zero or more
	 * @return this builder
	 * @throws NullPointerException if {@code maxDelay} is {@code null}
	 * @throws IllegalArgumentException if {@code maxDelay} is negative or longer than
	 * {@code Long.MAX_VALUE} nanoseconds (about 292 years)
	 */
	public BackoffPolicyBuilder maxDelay(Duration maxDelay) {
		this.maxDelay = checkDuration("maxDelay", maxDelay);
		return this;
	}

	/**
	 * Sets the multiplier {@code m} between successive delays of the
	 * {@link BackoffType#isExponential() exponential} types; other types ignore it. Default: 2.0, or
	 * the base policy's multiplier. {@link #build()} checks that it is 1.0 or greater when the type is
	 * exponential.
	 * @param multiplier the multiplier, a finite number greater than 0
	 * @return this builder
	 * @throws IllegalArgumentException if {@code multiplier} is NaN, infinite, zero or negative
	 */
	public BackoffPolicyBuilder multiplier(double multiplier) {
		if (!(multiplier > 0.0) || Double.isInfinite(multiplier)) {
			throw new IllegalArgumentException(
					"Invalid multiplier (" + multiplier + "): must be a finite number greater than 0");
		}
		this.multiplier = multiplier;
		return this;
	}

	/**
	 * Sets the jitter factor {@code j}: a computed delay {@code x} becomes {@code x·(1 + j·(2r − 1))},
	 * clamped into {@code [0, maxDelay]}. With 0 no random number is drawn for jitter. Default: 0.0, or
	 * the base policy's jitter.
	 * @param jitter the factor, within {@code [0.0, 1.0]}
	 * @return this builder
	 * @throws IllegalArgumentException if {@code jitter} is NaN or outside {@code [0.0, 1.0]}
	 */
	public BackoffPolicyBuilder jitter(double jitter) {
		if (!(jitter >= 0.0 && jitter <= 1.0)) {
			throw new IllegalArgumentException("Invalid jitter (" + jitter + "): must be between 0.0 and 1.0");
		}
		// Adding 0.0 turns -0.0 into 0.0, so that equal settings compare equal.
		this.jitter = jitter + 0.0;
		return this;
	}

	/**
	 * Sets the source of the random number {@code r} of the random types and of jitter. It must
	 * return values uniform in {@code [0, 1)} and be thread-safe, as one policy serves many calls at
	 * once; values outside that range still give delays within {@code [0, maxDelay]}. Meant for tests
	 * that need deterministic delays. Default: {@link java.util.concurrent.ThreadLocalRandom}, or the
	 * base policy's source. The source is not part of {@link BackoffPolicy#equals(Object)}.
	 * @param random the random source
	 * @return this builder
	 * @throws NullPointerException if {@code random} is {@code null}
	 */
	public BackoffPolicyBuilder random(DoubleSupplier random) {
		this.random = Objects.requireNonNull(random, "random");
		return this;
	}

	/**
	 * Builds a policy from a copy of the current settings; later changes to this builder do not
	 * affect it.
	 * @return a new immutable policy
	 * @throws IllegalArgumentException if {@code maxDelay} is shorter than {@code delay}, or the type
	 * is exponential and {@code multiplier} is less than 1.0
	 */
	public BackoffPolicy build() {
		if (this.maxDelay.compareTo(this.delay) < 0) {
			throw new IllegalArgumentException("Invalid maxDelay (" + Durations.format(this.maxDelay)
					+ "): must be greater than or equal to delay (" + Durations.format(this.delay) + ")");
		}
		if (this.type.isExponential() && this.multiplier < 1.0) {
			throw new IllegalArgumentException("Invalid multiplier (" + this.multiplier
					+ "): must be 1.0 or greater for backoff type '" + this.type.getId() + "'");
		}
		return new BackoffPolicy(this.type, this.delay, this.maxDelay, this.multiplier, this.jitter, this.random);
	}

	private static Duration checkDuration(String name, Duration value) {
		Objects.requireNonNull(value, name);
		if (value.isNegative()) {
			throw new IllegalArgumentException(
					"Invalid " + name + " (" + Durations.format(value) + "): must be zero or greater");
		}
		if (value.compareTo(LONGEST) > 0) {
			throw new IllegalArgumentException("Invalid " + name + " (" + Durations.format(value)
					+ "): must be at most Long.MAX_VALUE nanoseconds (about 292 years)");
		}
		return value;
	}

}
