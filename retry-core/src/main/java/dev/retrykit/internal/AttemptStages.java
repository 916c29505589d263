package dev.retrykit.internal;

import java.lang.System.Logger.Level;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;

import org.jspecify.annotations.Nullable;

/**
 * What the async engine may do with the stage an attempt returned, whatever its class: a
 * {@link CompletableFuture#minimalCompletionStage() minimal stage} is a {@code CompletableFuture} that
 * throws {@link UnsupportedOperationException} from {@code isDone}, {@code getNow} and {@code cancel},
 * and a user's {@link Future} may throw from {@code cancel}. Stateless.
 */
final class AttemptStages {

	private static final System.Logger LOGGER = System.getLogger(AttemptStages.class.getName());

	/** The JDK's minimal stage class, which refuses every query and {@code cancel}. */
	private static final Class<?> MINIMAL_STAGE = new CompletableFuture<>().minimalCompletionStage().getClass();

	private AttemptStages() {
	}

	/**
	 * @param stage an attempt's stage
	 * @param <T> the result type
	 * @return the stage as a {@code CompletableFuture} whose state may be read without waiting, or
	 * {@code null} when it is not one, or is a minimal stage
	 */
	@SuppressWarnings("unchecked")
	static <T> @Nullable CompletableFuture<T> readable(@Nullable CompletionStage<T> stage) {
		return (stage instanceof CompletableFuture<?> future && future.getClass() != MINIMAL_STAGE)
				? (CompletableFuture<T>) future : null;
	}

	/**
	 * @param name the instance
	 * @return the failure of an attempt whose supplier returned {@code null}
	 */
	static NullPointerException nullStage(String name) {
		return new NullPointerException("The supplier of retry '" + name + "' returned null instead of a stage");
	}

	/**
	 * Cancels an attempt whose outcome the call no longer takes, when its stage is a {@link Future} that
	 * allows it. A stage that throws from {@code cancel} is logged and left to run; its outcome is ignored.
	 * @param stage the attempt's stage, or {@code null}
	 * @param mayInterruptIfRunning passed to {@link Future#cancel}
	 * @param name the instance, for the log
	 */
	static void cancel(@Nullable CompletionStage<?> stage, boolean mayInterruptIfRunning, String name) {
		if (!(stage instanceof Future<?> future) || future.getClass() == MINIMAL_STAGE) {
			return;
		}
		try {
			future.cancel(mayInterruptIfRunning);
		}
		catch (RuntimeException ex) {
			LOGGER.log(Level.WARNING, "Retry '" + name + "' could not cancel an attempt it no longer waits for ("
					+ stage.getClass().getName() + ".cancel threw); the attempt runs on and its outcome is ignored", ex);
		}
	}

}
