package dev.retrykit;

import java.io.Serial;

import org.jspecify.annotations.Nullable;

/**
 * An attempt's failure that says the service it called has already retried, and given up: that
 * service's own retrykit call ran out of attempts or was refused, and its answer carries the
 * {@code X-Retry-Exhausted} marker. Retrying it would multiply the load on a failing dependency down
 * the chain (three tiers of 3 attempts put 9 calls on the leaf). A call never retries or hedges past
 * it: it ends at once (recovered, if it has a recovery) and counts a rejection with reason
 * {@code downstream_exhausted}.
 *
 * <p>The Spring module's HTTP clients raise it inside their calls and hand the caller the marked
 * response as it came; other clients throw it from an attempt to get the same rule.
 */
public class DownstreamExhaustedException extends RuntimeException {

	@Serial
	private static final long serialVersionUID = 1L;

	/** What the downstream named as exhausted. */
	private final String downstream;

	/**
	 * Makes the failure of an attempt whose answer says the downstream has given up.
	 * @param downstream what the downstream named as exhausted (its retrykit instance)
	 * @param cause the failure the answer was, or {@code null}
	 */
	public DownstreamExhaustedException(String downstream, @Nullable Throwable cause) {
		super("The downstream already retried and gave up (" + downstream + "): not retried here", cause);
		this.downstream = downstream;
	}

	/** {@return what the downstream named as exhausted (its retrykit instance)} */
	public String downstream() {
		return this.downstream;
	}

}
