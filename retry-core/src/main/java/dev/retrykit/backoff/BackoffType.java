package dev.retrykit.backoff;

import java.util.Objects;
import java.util.StringJoiner;

/**
 * How a {@link BackoffPolicy} computes the delay before retry {@code n} ({@code n = 1} for the first
 * retry), from the delay {@code d}, the multiplier {@code m}, the maximum delay {@code max}, and
 * {@code r} uniform in {@code [0,1)}. Every type is capped at {@code max}.
 *
 * <p>Each constant has a property id, the form users write in configuration ({@code backoff.type:
 * exponential-random}). Enum constants are immutable and thread-safe.
 */
public enum BackoffType {

	/** No delay: retry at once. */
	NONE("none"),

	/** The same delay before every retry: {@code d}. */
	FIXED("fixed"),

	/** A delay that grows by {@code d} each retry: {@code d·n}. */
	LINEAR("linear"),

	/** A delay multiplied by {@code m} each retry: {@code d·m^(n−1)}. */
	EXPONENTIAL("exponential"),

	/**
	 * Spring Retry's randomised exponential delay: {@code d·m^(n−1)·(1 + r·(m−1))}, between the
	 * exponential delay of this retry and that of the next.
	 */
	EXPONENTIAL_RANDOM("exponential-random"),

	/** A random delay between {@code d} and {@code max}: {@code d + r·(max − d)}. */
	UNIFORM_RANDOM("uniform-random"),

	/** A delay that follows the Fibonacci sequence: {@code d·F(n)} with {@code F = 1, 1, 2, 3, 5, …}. */
	FIBONACCI("fibonacci"),

	/**
	 * AWS "full jitter": a random delay up to the capped exponential delay,
	 * {@code r·min(max, d·m^(n−1))}.
	 */
	FULL_JITTER("full-jitter"),

	/**
	 * AWS "equal jitter": half the capped exponential delay {@code e = min(max, d·m^(n−1))} plus a
	 * random part of the other half, {@code e/2 + r·e/2}.
	 */
	EQUAL_JITTER("equal-jitter"),

	/**
	 * AWS "decorrelated jitter": a random delay that grows from the previous one,
	 * {@code min(max, d + r·(3·prev − d))} with {@code prev} starting at {@code d}.
	 */
	DECORRELATED_JITTER("decorrelated-jitter");

	private static final BackoffType[] ALL = values();

	private final String id;

	BackoffType(String id) {
		this.id = id;
	}

	/**
	 * The property id of this type, as written in configuration (for example {@code full-jitter}).
	 * @return the id, lower case with dashes, never {@code null}
	 */
	public String getId() {
		return this.id;
	}

	/**
	 * Whether this type multiplies the delay by the multiplier at each retry, so that its multiplier
	 * must be {@code 1.0} or greater: true for {@link #EXPONENTIAL}, {@link #EXPONENTIAL_RANDOM},
	 * {@link #FULL_JITTER} and {@link #EQUAL_JITTER}.
	 * @return whether the multiplier applies to this type
	 */
	public boolean isExponential() {
		return this == EXPONENTIAL || this == EXPONENTIAL_RANDOM || this == FULL_JITTER || this == EQUAL_JITTER;
	}

	/**
	 * Looks a type up by its property id ({@code exponential-random}) or its constant name
	 * ({@code EXPONENTIAL_RANDOM}), ignoring case (in a locale-independent way).
	 * @param id the id or name of the type
	 * @return the type, never {@code null}
	 * @throws NullPointerException if {@code id} is {@code null}
	 * @throws IllegalArgumentException if no type has this id or name; the message names the value
	 * and lists every allowed id
	 */
	public static BackoffType fromId(String id) {
		Objects.requireNonNull(id, "id");
		for (BackoffType type : ALL) {
			if (type.id.equalsIgnoreCase(id) || type.name().equalsIgnoreCase(id)) {
				return type;
			}
		}
		throw new IllegalArgumentException("Invalid backoff type (" + id + "): must be one of " + allowedIds());
	}

	private static String allowedIds() {
		StringJoiner ids = new StringJoiner(", ");
		for (BackoffType type : ALL) {
			ids.add(type.id);
		}
		return ids.toString();
	}

}
