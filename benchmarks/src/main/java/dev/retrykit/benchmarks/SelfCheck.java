package dev.retrykit.benchmarks;

import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Proves, before anything is measured, that a library configured for a benchmark really retries:
 * a call that fails twice must succeed on its third attempt, without waiting between attempts.
 *
 * <p>A benchmark that measured a library which silently gave up, or slept, would compare nothing;
 * so a failed check throws {@link IllegalStateException} from {@code @Setup}, which makes JMH fail
 * that benchmark instead of reporting a number.
 */
final class SelfCheck {

	/** Attempts a library must make for a call that fails twice: 1 call + 2 retries. */
	static final int EXPECTED_ATTEMPTS = 3;

	/**
	 * Longer than any honest zero-delay run (class loading included), shorter than the two default
	 * backoffs of every peer (the smallest is Resilience4j's 2 x 500ms).
	 */
	private static final long MAX_ELAPSED_NANOS = 900_000_000L;

	private SelfCheck() {
	}

	/**
	 * Runs a call that fails twice through {@code library} and checks it took exactly three attempts.
	 * @param library the library's name, for the message
	 * @param runner runs the given call through the library and returns its result
	 * @throws IllegalStateException if the call failed, took another number of attempts, returned
	 * something else, or took so long that a backoff must be configured
	 */
	static void requireThreeAttempts(String library, Runner runner) {
		FlakyCall call = new FlakyCall(EXPECTED_ATTEMPTS - 1, "self-check");
		long start = System.nanoTime();
		Object result;
		try {
			result = runner.run(call);
		}
		catch (Throwable ex) {
			throw new IllegalStateException(library + " gave up after " + call.attempts()
					+ " attempt(s) on a call that succeeds on attempt " + EXPECTED_ATTEMPTS, ex);
		}
		long elapsed = System.nanoTime() - start;
		if (call.attempts() != EXPECTED_ATTEMPTS || !call.result().equals(result)) {
			throw new IllegalStateException(library + " returned " + result + " after " + call.attempts()
					+ " attempt(s); expected " + call.result() + " after " + EXPECTED_ATTEMPTS);
		}
		if (elapsed > MAX_ELAPSED_NANOS) {
			throw new IllegalStateException(library + " took " + elapsed / 1_000_000L
					+ "ms for " + EXPECTED_ATTEMPTS + " attempts: it is not configured for zero delay");
		}
	}

	/**
	 * Runs an async call that fails twice through {@code library} and checks that the returned stage is
	 * already complete when the call returns (the zero-delay retries ran on the calling thread, so a
	 * benchmark measures the library and not a thread hop), with the third attempt's result.
	 * @param library the library's name, for the message
	 * @param runner runs the given async call through the library and returns its stage
	 * @throws IllegalStateException if the stage is not complete, failed, or took another number of attempts
	 */
	static void requireThreeAsyncAttempts(String library, AsyncRunner runner) {
		FlakyAsyncCall call = new FlakyAsyncCall(EXPECTED_ATTEMPTS - 1, "self-check");
		CompletionStage<?> stage;
		try {
			stage = runner.run(call);
		}
		catch (Throwable ex) {
			throw new IllegalStateException(library + " threw after " + call.attempts() + " attempt(s)", ex);
		}
		Object result = resultNow(library, stage);
		if (call.attempts() != EXPECTED_ATTEMPTS || !call.result().equals(result)) {
			throw new IllegalStateException(library + " completed with " + result + " after " + call.attempts()
					+ " attempt(s); expected " + call.result() + " after " + EXPECTED_ATTEMPTS);
		}
	}

	/**
	 * The result of a stage that must already be complete and successful; what every async benchmark
	 * hands to the blackhole, so a library that left work pending or failed cannot report a number.
	 * @param library the library's name, for the message
	 * @param stage the stage a library returned
	 * @return its result
	 * @throws IllegalStateException if the stage is not complete or failed
	 */
	static <T> T resultNow(String library, CompletionStage<T> stage) {
		CompletableFuture<T> future = stage.toCompletableFuture();
		if (!future.isDone() || future.isCompletedExceptionally()) {
			throw new IllegalStateException(library + " returned a stage that is not complete and successful: " + future);
		}
		return future.join();
	}

	/** Runs an async call through the library under check. */
	@FunctionalInterface
	interface AsyncRunner {

		/**
		 * @param call the async call to run, failing twice before it succeeds
		 * @return the stage the library returned
		 * @throws Throwable whatever the library threw
		 */
		CompletionStage<?> run(FlakyAsyncCall call) throws Throwable;

	}

	/** Runs a call through the library under check. */
	@FunctionalInterface
	interface Runner {

		/**
		 * @param call the call to run, failing twice before it succeeds
		 * @return what the library returned
		 * @throws Throwable whatever the library threw
		 */
		Object run(Callable<String> call) throws Throwable;

	}

}
