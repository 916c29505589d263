package dev.retrykit.hedging;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

import dev.retrykit.RetryTemplate;
import dev.retrykit.context.RetryContext;
import org.jspecify.annotations.Nullable;

/**
 * A downstream whose answers the test gives by hand: each call is a {@link Copy} that records when its
 * {@code cancel} was called, what {@link dev.retrykit.RetryTemplate#currentContext()} said in it, and that refuses to be
 * cancelled, so that a loser completing later shows whether the engine still listens. Not thread-safe.
 */
final class Downstream implements Supplier<CompletionStage<String>> {

	final List<Copy> copies = new ArrayList<>();

	@Override
	public CompletionStage<String> get() {
		RetryContext context = RetryTemplate.currentContext();
		Copy copy = new Copy((context != null) ? context.getRetryCount() : -1,
				(context != null) ? context.getAttribute("retry.hedged") : null);
		this.copies.add(copy);
		return copy;
	}

	Copy copy(int number) {
		return this.copies.get(number - 1);
	}

	int calls() {
		return this.copies.size();
	}

	/** One call to the downstream: a future whose {@code cancel} is counted and otherwise ignored. */
	static final class Copy extends CompletableFuture<String> {

		final int retryCount;

		final @Nullable Object hedged;

		int cancels;

		Copy(int retryCount, @Nullable Object hedged) {
			this.retryCount = retryCount;
			this.hedged = hedged;
		}

		@Override
		public boolean cancel(boolean mayInterruptIfRunning) {
			this.cancels++;
			return false;
		}

	}

}
