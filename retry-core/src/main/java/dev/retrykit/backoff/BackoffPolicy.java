package dev.retrykit.backoff;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;

import dev.retrykit.spi.BackoffCursor;
import dev.retrykit.spi.BackoffStrategy;
import dev.retrykit.text.Durations;

/**
 * The built-in backoff: the delay before each retry, computed by a {@link BackoffType} from a delay,
 * a multiplier, a maximum delay and a jitter factor.
 *
 * <p>The delay before retry {@code n} is first computed by the type's formula and capped at
 * {@link #getMaxDelay() maxDelay}; no retry number, however large, makes it overflow. A jitter
 * factor {@code j} greater than zero then turns that delay {@code x} into
 * {@code x·(1 + j·(2r − 1))}, clamped into {@code [0, maxDelay]}.
 *
 * <p>A policy depends only on the retry number and the previous delay, so it is its own
 * {@link BackoffCursor}: {@link #start()} returns {@code this} and neither starting a call nor
 * computing a delay allocates anything.
 *
 * <p>Instances are immutable and thread-safe, provided their random source is (the default,
 * {@link ThreadLocalRandom}, is). Create them with the static factories or a
 * {@link BackoffPolicyBuilder}; {@link #builder(BackoffPolicy)} starts a new builder from an existing
 * policy, which is how shared base configurations are inherited.
 */
public final class BackoffPolicy implements BackoffStrategy, BackoffCursor {

	/** The default backoff type: {@link BackoffType#EXPONENTIAL}. */
	public static final BackoffType DEFAULT_TYPE = BackoffType.EXPONENTIAL;

	/** The default delay: 100 milliseconds. */
	public static final Duration DEFAULT_DELAY = Duration.ofMillis(100);

	/** The default multiplier: 2.0. */
	public static final double DEFAULT_MULTIPLIER = 2.0;

	/** The default maximum delay: 10 seconds. */
	public static final Duration DEFAULT_MAX_DELAY = Duration.ofSeconds(10);

	/** The default jitter factor: 0.0, no jitter. */
	public static final double DEFAULT_JITTER = 0.0;

	/** The default random source: uniform in {@code [0,1)} from {@link ThreadLocalRandom}. */
	static final DoubleSupplier THREAD_LOCAL_RANDOM = () -> ThreadLocalRandom.current().nextDouble();

	private static final BackoffPolicy DEFAULTS = new BackoffPolicy(DEFAULT_TYPE, DEFAULT_DELAY, DEFAULT_MAX_DELAY,
			DEFAULT_MULTIPLIER, DEFAULT_JITTER, THREAD_LOCAL_RANDOM);

	private final BackoffType type;

	private final Duration delay;

	private final Duration maxDelay;

	private final double multiplier;

	private final double jitter;

	private final DoubleSupplier random;

	// Precomputed for the hot path, which works in double nanoseconds and clamps before converting.
	private final double delayNanos;

	private final long maxDelayNanos;

	private final double maxDelayNanosAsDouble;

	/** Only the builder calls this, with values it has validated. */
	BackoffPolicy(BackoffType type, Duration delay, Duration maxDelay, double multiplier, double jitter,
			DoubleSupplier random) {
		this.type = type;
		this.delay = delay;
		this.maxDelay = maxDelay;
		this.multiplier = multiplier;
		this.jitter = jitter;
		this.random = random;
		this.delayNanos = delay.toNanos();
		this.maxDelayNanos = maxDelay.toNanos();
		this.maxDelayNanosAsDouble = this.maxDelayNanos;
	}

	/**
	 * The default backoff: exponential, delay 100ms, multiplier 2.0, maximum delay 10s, no jitter.
	 * @return the shared default policy
	 */
	public static BackoffPolicy defaults() {
		return DEFAULTS;
	}

	/**
	 * No delay between attempts: the {@link #defaults()} with type {@link BackoffType#NONE}.
	 * @return a policy whose every delay is zero
	 */
	public static BackoffPolicy none() {
		return builder().type(BackoffType.NONE).build();
	}

	/**
	 * The same delay before every retry. The maximum delay is the larger of {@code delay} and the
	 * default maximum delay (10s), so that a jitter added later can still lengthen the delay.
	 * @param delay the delay before each retry, zero or more
	 * @return a fixed policy
	 * @throws NullPointerException if {@code delay} is {@code null}
	 * @throws IllegalArgumentException if {@code delay} is negative or longer than about 292 years
	 */
	public static BackoffPolicy fixed(Duration delay) {
		BackoffPolicyBuilder builder = builder().type(BackoffType.FIXED).delay(delay);
		return builder.maxDelay((delay.compareTo(DEFAULT_MAX_DELAY) > 0) ? delay : DEFAULT_MAX_DELAY).build();
	}

	/**
	 * An exponential backoff, {@code delay·multiplier^(n−1)} capped at {@code maxDelay}, without jitter.
	 * @param delay the delay before the first retry, zero or more
	 * @param multiplier the factor between successive delays, 1.0 or greater
	 * @param maxDelay the maximum delay, {@code delay} or greater
	 * @return an exponential policy
	 * @throws NullPointerException if a duration is {@code null}
	 * @throws IllegalArgumentException if a value breaks its rule; the message names it
	 */
	public static BackoffPolicy exponential(Duration delay, double multiplier, Duration maxDelay) {
		return builder().type(BackoffType.EXPONENTIAL).delay(delay).multiplier(multiplier).maxDelay(maxDelay).build();
	}

	/**
	 * Starts a builder from the {@link #defaults()}.
	 * @return a new builder
	 */
	public static BackoffPolicyBuilder builder() {
		return new BackoffPolicyBuilder(DEFAULTS);
	}

	/**
	 * Starts a builder from an existing policy: every setting, the random source included, is copied
	 * and only what is set on the builder changes. The base policy itself never changes.
	 * @param base the policy to start from
	 * @return a new builder
	 * @throws NullPointerException if {@code base} is {@code null}
	 */
	public static BackoffPolicyBuilder builder(BackoffPolicy base) {
		return new BackoffPolicyBuilder(Objects.requireNonNull(base, "base"));
	}

	/**
	 * Returns this policy, which is its own cursor, so starting a call allocates nothing.
	 * @return {@code this}
	 */
	@Override
	public BackoffCursor start() {
		return this;
	}

	/**
	 * Computes the delay before a retry. Allocates nothing and never overflows: the result is always
	 * within {@code [0, maxDelay]}. Draws from the random source only for the random types and when
	 * the jitter is greater than zero.
	 * @param retry the retry number, 1 for the first retry
	 * @param previousDelayNanos the delay returned for the previous retry, or 0 for the first; only
	 * {@link BackoffType#DECORRELATED_JITTER} reads it, and reads 0 as "use the delay"
	 * @return the delay in nanoseconds, within {@code [0, maxDelay]}
	 * @throws IllegalArgumentException if {@code retry} is less than 1 or {@code previousDelayNanos}
	 * is negative
	 */
	@Override
	public long nextDelayNanos(int retry, long previousDelayNanos) {
		if (retry < 1) {
			throw new IllegalArgumentException("Invalid retry (" + retry + "): must be 1 or greater");
		}
		if (previousDelayNanos < 0) {
			throw new IllegalArgumentException(
					"Invalid previousDelayNanos (" + previousDelayNanos + "): must be zero or greater");
		}
		// Cap before jitter so that jitter never multiplies an infinite or overflowed value.
		double delay = Math.min(typeDelay(retry, previousDelayNanos), this.maxDelayNanosAsDouble);
		// A zero delay stays zero: jitter scales a delay, and skipping it saves drawing a number.
		if (this.jitter != 0.0 && delay > 0.0) {
			delay *= 1.0 + this.jitter * (2.0 * this.random.getAsDouble() - 1.0);
		}
		return clampToNanos(delay);
	}

	private double typeDelay(int retry, long previousDelayNanos) {
		double d = this.delayNanos;
		return switch (this.type) {
			case NONE -> 0.0;
			case FIXED -> d;
			case LINEAR -> d * retry;
			case EXPONENTIAL -> exponential(retry);
			case EXPONENTIAL_RANDOM -> exponential(retry) * (1.0 + nextRandom() * (this.multiplier - 1.0));
			case UNIFORM_RANDOM -> d + nextRandom() * (this.maxDelayNanosAsDouble - d);
			case FIBONACCI -> fibonacci(retry);
			case FULL_JITTER -> nextRandom() * exponential(retry);
			case EQUAL_JITTER -> equalJitter(exponential(retry));
			case DECORRELATED_JITTER -> decorrelatedJitter(previousDelayNanos);
		};
	}

	/** {@code d·m^(n−1)} capped at the maximum: an infinite power is capped, and a zero delay stays zero. */
	private double exponential(int retry) {
		if (this.delayNanos == 0.0) {
			return 0.0;
		}
		return Math.min(this.delayNanos * Math.pow(this.multiplier, retry - 1), this.maxDelayNanosAsDouble);
	}

	private double equalJitter(double exponential) {
		double half = exponential / 2.0;
		return half + nextRandom() * half;
	}

	private double decorrelatedJitter(long previousDelayNanos) {
		double previous = (previousDelayNanos == 0) ? this.delayNanos : previousDelayNanos;
		return this.delayNanos + nextRandom() * (3.0 * previous - this.delayNanos);
	}

	/**
	 * {@code d·F(n)} by iteration with saturation: once {@code F(n)} exceeds {@code max/d} the result is
	 * the maximum, which bounds the loop to about 90 steps for any retry number.
	 */
	private double fibonacci(int retry) {
		if (this.delayNanos == 0.0) {
			return 0.0;
		}
		double limit = this.maxDelayNanosAsDouble / this.delayNanos;
		double previous = 1.0;
		double current = 1.0;
		for (int n = 3; n <= retry; n++) {
			double next = previous + current;
			previous = current;
			current = next;
			if (current > limit) {
				return this.maxDelayNanosAsDouble;
			}
		}
		return this.delayNanos * current;
	}

	/** The random source, for {@link BackoffPolicyBuilder} to copy. */
	DoubleSupplier random() {
		return this.random;
	}

	private double nextRandom() {
		return this.random.getAsDouble();
	}

	/** Clamps into {@code [0, maxDelay]} before converting; NaN (from a faulty random source) gives the maximum. */
	private long clampToNanos(double delay) {
		if (!(delay < this.maxDelayNanosAsDouble)) {
			return this.maxDelayNanos;
		}
		if (!(delay > 0.0)) {
			return 0L;
		}
		return Math.min(Math.round(delay), this.maxDelayNanos);
	}

	/**
	 * The backoff type.
	 * @return the type, never {@code null}
	 */
	public BackoffType getType() {
		return this.type;
	}

	/**
	 * The base delay {@code d} of the formulas.
	 * @return the delay, zero or more
	 */
	public Duration getDelay() {
		return this.delay;
	}

	/**
	 * The maximum delay: every delay, jitter included, is capped at it.
	 * @return the maximum delay, at least {@link #getDelay()}
	 */
	public Duration getMaxDelay() {
		return this.maxDelay;
	}

	/**
	 * The multiplier {@code m}, read by the {@link BackoffType#isExponential() exponential} types.
	 * @return the multiplier, greater than zero (1.0 or greater for exponential types)
	 */
	public double getMultiplier() {
		return this.multiplier;
	}

	/**
	 * The jitter factor {@code j}: 0 for none, up to 1 for a delay anywhere between 0 and twice the
	 * computed delay (capped).
	 * @return the jitter factor, within {@code [0, 1]}
	 */
	public double getJitter() {
		return this.jitter;
	}

	/**
	 * Compares type, delay, maximum delay, multiplier and jitter. The random source is not compared:
	 * two policies that differ only in their random source are equal.
	 * @param other the object to compare with
	 * @return whether {@code other} is a policy with the same settings
	 */
	@Override
	public boolean equals(Object other) {
		if (this == other) {
			return true;
		}
		return (other instanceof BackoffPolicy that) && this.type == that.type && this.delay.equals(that.delay)
				&& this.maxDelay.equals(that.maxDelay) && Double.compare(this.multiplier, that.multiplier) == 0
				&& Double.compare(this.jitter, that.jitter) == 0;
	}

	/**
	 * A hash of the settings compared by {@link #equals(Object)}.
	 * @return the hash code
	 */
	@Override
	public int hashCode() {
		return Objects.hash(this.type, this.delay, this.maxDelay, this.multiplier, this.jitter);
	}

	/**
	 * The effective settings, for logs and the actuator, such as
	 * {@code exponential(delay=100ms, multiplier=2.0, maxDelay=10s, jitter=0.5)}.
	 * @return a readable description of this policy
	 */
	@Override
	public String toString() {
		return this.type.getId() + "(delay=" + Durations.format(this.delay) + ", multiplier=" + this.multiplier
				+ ", maxDelay=" + Durations.format(this.maxDelay) + ", jitter=" + this.jitter + ")";
	}

}
