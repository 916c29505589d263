package dev.retrykit.policy;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.StringJoiner;
import java.util.concurrent.atomic.AtomicLong;

import dev.retrykit.context.ForwardingRetryContext;
import dev.retrykit.context.RetryContext;
import org.jspecify.annotations.Nullable;

/**
 * A policy per failure type, each type's attempts counted separately (Spring Retry's
 * {@code ExceptionClassifierRetryPolicy}): the entry of the closest superclass of the last failure
 * decides, and its policy sees in {@link RetryContext#getRetryCount()} only the failures that matched
 * that entry. Two {@code IOException}s then two {@code TimeoutException}s with a limit of 3 each
 * make five attempts, not three; the call stops when the current failure's type has used up its own
 * limit. Failures of no mapped type, and rejected results, go to the fallback policy, with a count of
 * their own. {@link ExceptionTypeRetryPolicy} differs only in that every entry sees the call's total.
 *
 * <pre>{@code
 * RetryTemplate template = RetryTemplate.builder()
 *     .maxAttempts(-1) // the template's own limit (default 3) still caps the call
 *     .policy(RetryPolicy.byExceptionTypeCountingPerType()
 *         .on(IOException.class, 3)
 *         .on(TimeoutException.class, 3)
 *         .build())
 *     .build();
 * }</pre>
 *
 * <p>The counts live in the call's context (an attribute private to this policy), so the policy
 * itself is stateless, immutable and thread-safe, and a stateful call's counts carry over with its
 * cached context. A failure is counted once, however often the policy is asked about it. Two such
 * policies are equal when they map the same types to equal policies and have equal fallbacks (each still
 * keeps its counts apart).
 */
public final class PerExceptionTypeRetryPolicy implements RetryPolicy {

	/** Makes each policy's attribute name unique, so that two such policies never share counts. */
	private static final AtomicLong INSTANCES = new AtomicLong();

	private final Map<Class<? extends Throwable>, Integer> indexes;

	/** The entries' policies by index; the fallback is last. */
	private final RetryPolicy[] policies;

	private final String attribute;

	private final String description;

	private PerExceptionTypeRetryPolicy(Map<Class<? extends Throwable>, RetryPolicy> entries, RetryPolicy fallback) {
		this.indexes = new LinkedHashMap<>();
		List<RetryPolicy> ordered = new ArrayList<>(entries.size() + 1);
		StringJoiner shown = new StringJoiner(", ", "perExceptionType{", "}");
		// In registration order, so that toString (the effective config the actuator shows) is stable;
		// lookups walk the superclass chain, so order never decides a match.
		entries.forEach((type, policy) -> {
			this.indexes.put(type, ordered.size());
			ordered.add(policy);
			shown.add(type.getName() + "=" + policy);
		});
		ordered.add(fallback);
		this.policies = ordered.toArray(RetryPolicy[]::new);
		this.attribute = PerExceptionTypeRetryPolicy.class.getName() + "#" + INSTANCES.incrementAndGet();
		this.description = shown + " otherwise " + fallback + ", each type counted separately";
	}

	/** {@return a builder whose fallback is {@link RetryPolicy#never()}} */
	public static Builder builder() {
		return new Builder();
	}

	@Override
	public boolean canRetry(RetryContext context) {
		Throwable failure = context.getLastThrowable();
		int index = (failure != null) ? indexOf(failure.getClass()) : this.policies.length - 1;
		int count = counts(context).count(index, context.getRetryCount());
		return this.policies[index].canRetry(new TypeCountContext(context, count));
	}

	private int indexOf(Class<?> type) {
		for (Class<?> candidate = type; candidate != null; candidate = candidate.getSuperclass()) {
			Integer index = this.indexes.get(candidate);
			if (index != null) {
				return index;
			}
		}
		return this.policies.length - 1;
	}

	private Counts counts(RetryContext context) {
		Object counts = context.getAttribute(this.attribute);
		if (counts instanceof Counts existing && existing.perEntry.length == this.policies.length) {
			return existing;
		}
		Counts fresh = new Counts(this.policies.length);
		context.setAttribute(this.attribute, fresh);
		return fresh;
	}

	@Override
	public boolean equals(@Nullable Object other) {
		return (other instanceof PerExceptionTypeRetryPolicy that) && this.indexes.equals(that.indexes)
				&& Arrays.equals(this.policies, that.policies);
	}

	@Override
	public int hashCode() {
		return 31 * this.indexes.hashCode() + Arrays.hashCode(this.policies);
	}

	@Override
	public String toString() {
		return this.description;
	}

	/** The failures counted per entry, kept in the call's context. Serializable, for a shared context cache. */
	private static final class Counts implements Serializable {

		private static final long serialVersionUID = 1L;

		private final int[] perEntry;

		/** The call's failure count when a failure was last counted: each failure is counted once. */
		private int countedUpTo;

		Counts(int entries) {
			this.perEntry = new int[entries];
		}

		synchronized int count(int index, int callFailures) {
			if (callFailures > this.countedUpTo) {
				this.countedUpTo = callFailures;
				this.perEntry[index]++;
			}
			return this.perEntry[index];
		}

	}

	/** The call's context as an entry's policy sees it: its retry count is that entry's failures. */
	private static final class TypeCountContext extends ForwardingRetryContext {

		private final int retryCount;

		TypeCountContext(RetryContext call, int retryCount) {
			super(call);
			this.retryCount = retryCount;
		}

		@Override
		public int getRetryCount() {
			return this.retryCount;
		}

	}

	/**
	 * Builds a {@link PerExceptionTypeRetryPolicy}. Each setter validates its argument at once. Not
	 * thread-safe; {@link #build()} copies the entries, so a builder may be reused.
	 */
	public static final class Builder {

		private final Map<Class<? extends Throwable>, RetryPolicy> entries = new LinkedHashMap<>();

		private RetryPolicy fallback = RetryPolicy.never();

		private Builder() {
		}

		/**
		 * Maps a failure type to a policy that sees only the failures of this entry.
		 * @param type the failure type; subclasses count towards it unless they have a closer entry
		 * @param policy the policy for it
		 * @return this builder
		 * @throws NullPointerException if an argument is {@code null}
		 * @throws IllegalArgumentException if {@code type} is already mapped
		 */
		public Builder on(Class<? extends Throwable> type, RetryPolicy policy) {
			Objects.requireNonNull(type, "type must not be null");
			Objects.requireNonNull(policy, "policy must not be null");
			RetryPolicy previous = this.entries.get(type);
			if (previous != null) {
				throw new IllegalArgumentException(type.getName() + " is already mapped (to " + previous
						+ "): each type may be mapped once");
			}
			this.entries.put(type, policy);
			return this;
		}

		/**
		 * Maps a failure type to a limit on its own attempts: {@code on(type, RetryPolicy.maxAttempts(n))}.
		 * @param type the failure type; subclasses count towards it unless they have a closer entry
		 * @param maxAttempts the attempts that may fail with this type, 1 or more, or -1 for unlimited
		 * @return this builder
		 * @throws IllegalArgumentException if {@code maxAttempts} is 0 or less than -1, or the type is
		 * already mapped
		 */
		public Builder on(Class<? extends Throwable> type, int maxAttempts) {
			Objects.requireNonNull(type, "type must not be null");
			if (maxAttempts == 0 || maxAttempts < -1) {
				throw new IllegalArgumentException("Invalid maxAttempts (" + maxAttempts + ") for " + type.getName()
						+ ": must be 1 or greater, or -1 for unlimited");
			}
			return on(type, RetryPolicy.maxAttempts(maxAttempts));
		}

		/**
		 * Sets the policy for failures of no mapped type and for rejected results, with a count of their own.
		 * @param policy the policy for failures of no mapped type and for rejected results, with a count
		 * of their own (default {@link RetryPolicy#never()})
		 * @return this builder
		 */
		public Builder otherwise(RetryPolicy policy) {
			this.fallback = Objects.requireNonNull(policy, "policy must not be null");
			return this;
		}

		/**
		 * Builds the policy.
		 * @return the policy
		 * @throws IllegalStateException if no type is mapped
		 */
		public PerExceptionTypeRetryPolicy build() {
			if (this.entries.isEmpty()) {
				throw new IllegalStateException("No exception type is mapped: add at least one with on(type, policy)");
			}
			return new PerExceptionTypeRetryPolicy(this.entries, this.fallback);
		}

	}

}
