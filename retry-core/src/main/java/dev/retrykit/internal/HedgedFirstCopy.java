package dev.retrykit.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.Supplier;

import dev.retrykit.Deadline;
import dev.retrykit.context.RetryContext;
import org.jspecify.annotations.Nullable;

/**
 * The first copy of a hedged call ({@link FirstAttempt}): run on the calling thread, it hands over to a
 * {@link HedgedCall} whose {@link HedgeRace} takes the copy over, unless it succeeded at once (then
 * nothing is allocated). Copy k &gt; 1 runs the supplier with its own context pushed as the current one.
 * A blocking call starts every copy, the first included, through a {@link CopySource} instead
 * ({@link HedgedBlockingCall}). A stateless singleton.
 */
final class HedgedFirstCopy extends FirstAttempt {

	static final HedgedFirstCopy INSTANCE = new HedgedFirstCopy();

	private HedgedFirstCopy() {
	}

	/**
	 * The copies of a call that hands each its context ({@link HedgedBlockingCall}): {@code get()} starts
	 * the first on the calling thread, {@link #copy} every later one.
	 * @param <T> the result type
	 */
	interface CopySource<T> {

		/**
		 * Starts copy k with its own context (retry count k − 1); the copy tells the listeners about
		 * itself ({@code beforeAttempt}, {@code attemptReturned}) on the thread that runs it, as {@code told},
		 * within a telling of {@code notices} (if any), so that the call's {@code close} waits for it.
		 */
		CompletionStage<T> copy(MutableRetryContext context, RetryContext told, @Nullable HedgeNotices notices);

	}

	@Override
	<T> CompletableFuture<T> newCall(RetryRuntime runtime, Supplier<? extends CompletionStage<T>> supplier,
			@Nullable Function<@Nullable Throwable, ? extends CompletionStage<T>> recovery, MutableRetryContext context) {
		return new HedgedCall<>(runtime, withContext(supplier), null, recovery, context);
	}

	private static <T> Function<MutableRetryContext, CompletionStage<T>> withContext(
			Supplier<? extends CompletionStage<T>> supplier) {
		return context -> {
			ContextStack stack = ContextStack.get();
			stack.push(context);
			Deadline.Scope deadline = CallDeadlines.enter(context);
			try {
				return supplier.get();
			}
			finally {
				CallDeadlines.exit(deadline);
				stack.pop();
			}
		};
	}

	@Override
	<T> void refused(CompletableFuture<T> call, ThreadCounters block, long reason) {
		HedgedCall<T> hedged = (HedgedCall<T>) call;
		hedged.race().ended = true;
		hedged.end(block, reason, null);
	}

	@Override
	long decide(RetryRuntime runtime, MutableRetryContext pooled, ThreadCounters block, @Nullable Object value) {
		return CallLifecycle.afterCopy(runtime, pooled, pooled, block, null, value, 1, runtime.maxAttempts > 1,
				null);
	}

	@Override
	<T> void carryOn(CompletableFuture<T> call, ThreadCounters block, long decision, @Nullable T value) {
		HedgeRace<T> race = ((HedgedCall<T>) call).race();
		long next;
		synchronized (race) {
			race.started = 1;
			race.firstStartNanos = race.hedges.timeSource.nanoTime();
			next = race.react(decision);
		}
		race.act(block, next, value, 0, false);
	}

	@Override
	<T> void carryOn(CompletableFuture<T> call, @Nullable CompletionStage<T> stage, @Nullable Throwable thrown) {
		HedgeRace<T> race = ((HedgedCall<T>) call).race();
		HedgeCopy<T> first;
		synchronized (race) {
			first = race.newCopy(HedgeCopyContext.told(race.runtime, race.context, 1));
		}
		race.started(first, stage, thrown);
	}

}
