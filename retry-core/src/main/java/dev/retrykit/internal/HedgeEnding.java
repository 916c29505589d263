package dev.retrykit.internal;

import java.util.List;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * A hedged call's end, for {@link CallEnding#finish}: the recovery's stage completes the caller's
 * future, or the failure does, or the last rejected result, as for any async call
 * ({@link AsyncRetryEnding#recoverInto}, {@link AsyncRetryEnding#failInto}). A blocking call's recovery is handed
 * the call's context by {@link HedgedBlockingCall}. Stateless.
 */
final class HedgeEnding implements CallEnding.Ending<@Nullable Void, HedgedCall<?>> {

	static final HedgeEnding INSTANCE = new HedgeEnding();

	private HedgeEnding() {
	}

	@Override
	public boolean hasRecovery(HedgedCall<?> call) {
		return call.recovery() != null;
	}

	@Override
	public @Nullable Void recover(HedgedCall<?> call, RetryRuntime runtime, MutableRetryContext context,
			ThreadCounters block, @Nullable Throwable failure) {
		recoverInto(call, runtime, failure);
		return null;
	}

	private static <T> void recoverInto(HedgedCall<T> call, RetryRuntime runtime, @Nullable Throwable failure) {
		AsyncRetryEnding.recoverInto(runtime, call.context(), Objects.requireNonNull(call.recovery()), failure, call);
	}

	@Override
	public @Nullable Void fail(HedgedCall<?> call, MutableRetryContext context, @Nullable Throwable failure) {
		AsyncRetryEnding.failInto(call, context, failure);
		return null;
	}

	/**
	 * As a hedged call ends without a winner: the last failure carries the other copies' failures as
	 * suppressed exceptions (each once, however often a call ends with that same exception).
	 */
	static void suppressOthers(HedgeRace<?> race) {
		List<Throwable> all = race.takeFailures();
		Throwable last = race.context.getLastThrowable();
		if (all == null || last == null) {
			return;
		}
		for (Throwable failure : all) {
			if (failure != last && !isSuppressedIn(last, failure)) {
				last.addSuppressed(failure);
			}
		}
	}

	private static boolean isSuppressedIn(Throwable last, Throwable failure) {
		for (Throwable suppressed : last.getSuppressed()) {
			if (suppressed == failure) {
				return true;
			}
		}
		return false;
	}

}
