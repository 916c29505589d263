package dev.retrykit.hedging;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import dev.retrykit.RetryCallback;
import dev.retrykit.RetryTemplate;
import dev.retrykit.VirtualTime;
import dev.retrykit.context.RetryContext;
import org.jspecify.annotations.Nullable;

/**
 * A blocking downstream whose answers the test gives by hand: each call is a {@link Copy} that blocks
 * its thread until {@link Copy#answer} is completed (a value, or a failure it throws), and records what
 * {@link dev.retrykit.RetryTemplate#currentContext()} said in it and whether its thread was interrupted. Thread-safe.
 */
final class BlockingDownstream implements RetryCallback<String, Exception> {

	private static final Duration PATIENCE = Duration.ofSeconds(10);

	final List<Copy> copies = new CopyOnWriteArrayList<>();

	@Override
	public String doWithRetry(RetryContext context) throws Exception {
		RetryContext current = RetryTemplate.currentContext();
		Copy copy = new Copy(context.getRetryCount(), context.getAttribute("retry.hedged"), current == context,
				Thread.currentThread());
		this.copies.add(copy);
		try {
			return copy.answer.get();
		}
		catch (InterruptedException ex) {
			copy.interrupted.complete(true);
			throw ex;
		}
		catch (ExecutionException ex) {
			if (ex.getCause() instanceof Error error) {
				throw error;
			}
			throw (Exception) ex.getCause();
		}
		finally {
			copy.returned.complete(null);
		}
	}

	Copy copy(int number) {
		awaitCalls(number);
		return this.copies.get(number - 1);
	}

	int calls() {
		return this.copies.size();
	}

	/** Waits until at least {@code calls} copies reached the downstream. */
	void awaitCalls(int calls) {
		await(() -> this.copies.size() >= calls, "copies reaching the downstream: " + calls);
	}

	/** Polls {@code condition} until it holds, failing after a generous deadline. */
	static void await(BooleanSupplier condition, String what) {
		long deadline = System.nanoTime() + PATIENCE.toNanos();
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() - deadline > 0) {
				throw new AssertionError("Timed out waiting for " + what);
			}
			LockSupport.parkNanos(1_000_000);
		}
	}

	/**
	 * Advances {@code time} by {@code step} at a time until {@code condition} holds, failing after the same
	 * generous deadline in real time. Not up to a fixed virtual time: a thread that arms a timer reads the
	 * time and schedules relative to it, so when the clock moves on in between the task falls later than it
	 * was computed for, and a clock that stops at a fixed end (however far) may never reach it. Each step
	 * waits a little in real time, so the other threads keep up with the clock.
	 */
	static void advanceUntil(VirtualTime time, Duration step, BooleanSupplier condition, String what) {
		await(() -> {
			if (condition.getAsBoolean()) {
				return true;
			}
			time.advance(step);
			return false;
		}, what);
	}

	/** One call to the downstream, blocking its thread until answered. */
	static final class Copy {

		final int retryCount;

		final @Nullable Object hedged;

		final boolean contextIsCurrent;

		final Thread thread;

		final CompletableFuture<String> answer = new CompletableFuture<>();

		final CompletableFuture<Boolean> interrupted = new CompletableFuture<>();

		final CompletableFuture<@Nullable Void> returned = new CompletableFuture<>();

		Copy(int retryCount, @Nullable Object hedged, boolean contextIsCurrent, Thread thread) {
			this.retryCount = retryCount;
			this.hedged = hedged;
			this.contextIsCurrent = contextIsCurrent;
			this.thread = thread;
		}

		boolean wasInterrupted() {
			return this.interrupted.getNow(false);
		}

	}

}
