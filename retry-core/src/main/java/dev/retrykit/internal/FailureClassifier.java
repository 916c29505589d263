package dev.retrykit.internal;

import java.time.Duration;
import java.util.function.Predicate;

import dev.retrykit.RetryConfig;
import dev.retrykit.policy.StatusCodes;
import dev.retrykit.spi.DelayHintExtractor;
import dev.retrykit.spi.StatusExtractor;
import org.jspecify.annotations.Nullable;

/**
 * Decides whether a failure is retryable from a {@link RetryConfig}'s rules, in this order: an
 * {@code ignore} type anywhere in the (cause) chain says no; a status code found by an extractor whose
 * kind has a configured list decides by that list; then a {@code retryOn} type or the {@code retryIf}
 * predicate says yes; with neither configured every {@link Exception} is retryable and no
 * {@link Error} is. Immutable and thread-safe.
 */
public final class FailureClassifier {

	private static final int MAX_CAUSE_DEPTH = 32;

	private final Class<?>[] retryOn;

	private final Class<?>[] ignore;

	private final boolean traverseCauses;

	private final @Nullable Predicate<? super Throwable> retryIf;

	private final @Nullable StatusCodes httpStatus;

	private final @Nullable StatusCodes grpcStatus;

	private final StatusExtractor[] extractors;

	/**
	 * Makes a classifier of the failure types, status codes and predicate of a configuration.
	 * @param config the configuration whose rules to apply
	 */
	public FailureClassifier(RetryConfig config) {
		this.retryOn = config.getRetryOn().toArray(new Class<?>[0]);
		this.ignore = config.getIgnore().toArray(new Class<?>[0]);
		this.traverseCauses = config.isTraverseCauses();
		this.retryIf = config.getRetryIf();
		this.httpStatus = config.getHttpStatus();
		this.grpcStatus = config.getGrpcStatus();
		this.extractors = config.getStatusExtractors().toArray(new StatusExtractor[0]);
	}

	/**
	 * {@return whether it may be retried}
	 * @param failure the failure of an attempt, already unwrapped from completion wrappers
	 */
	public boolean isRetryable(Throwable failure) {
		if (this.ignore.length != 0 && matches(this.ignore, failure)) {
			return false;
		}
		if (this.httpStatus != null || this.grpcStatus != null) {
			int decision = classifyByStatus(failure);
			if (decision >= 0) {
				return decision == 1;
			}
		}
		boolean listed = this.retryOn.length != 0;
		if (listed && matches(this.retryOn, failure)) {
			return true;
		}
		if (this.retryIf != null) {
			return this.retryIf.test(failure);
		}
		return !listed && !(failure instanceof Error);
	}

	/** @return 1 retry, 0 do not, -1 no status found */
	private int classifyByStatus(Throwable failure) {
		int depth = 0;
		for (Throwable current = failure; current != null && depth < MAX_CAUSE_DEPTH; current = next(current)) {
			for (StatusExtractor extractor : this.extractors) {
				StatusCodes codes = (extractor.kind() == StatusExtractor.Kind.HTTP) ? this.httpStatus : this.grpcStatus;
				if (codes != null) {
					int status = extractor.statusOf(current);
					if (status != StatusExtractor.NO_STATUS) {
						return codes.contains(status) ? 1 : 0;
					}
				}
			}
			depth++;
		}
		return -1;
	}

	private boolean matches(Class<?>[] types, Throwable failure) {
		int depth = 0;
		for (Throwable current = failure; current != null && depth < MAX_CAUSE_DEPTH; current = next(current)) {
			for (Class<?> type : types) {
				if (type.isInstance(current)) {
					return true;
				}
			}
			if (!this.traverseCauses) {
				return false;
			}
			depth++;
		}
		return false;
	}

	private static @Nullable Throwable next(Throwable current) {
		Throwable cause = current.getCause();
		return (cause == current) ? null : cause;
	}

	/**
	 * Walks a failure's cause chain for a delay hint.
	 * @param extractor the extractor
	 * @param failure the failure
	 * @return the first hint found, or {@code null}
	 */
	public static @Nullable Duration delayHint(DelayHintExtractor extractor, Throwable failure) {
		int depth = 0;
		for (Throwable current = failure; current != null && depth < MAX_CAUSE_DEPTH; current = next(current)) {
			Duration hint = extractor.delayHint(current);
			if (hint != null) {
				return hint;
			}
			depth++;
		}
		return null;
	}

	/**
	 * Unwraps the wrappers that async code puts around a failure.
	 * @param failure a failure
	 * @return the failure inside {@link java.util.concurrent.CompletionException} and
	 * {@link java.util.concurrent.ExecutionException} wrappers
	 */
	public static Throwable unwrap(Throwable failure) {
		Throwable current = failure;
		while ((current instanceof java.util.concurrent.CompletionException
				|| current instanceof java.util.concurrent.ExecutionException) && current.getCause() != null) {
			current = current.getCause();
		}
		return current;
	}

}
