package dev.retrykit;

import java.util.Objects;

import dev.retrykit.context.RetryContext;
import org.jspecify.annotations.Nullable;

/**
 * The time a call's context is {@linkplain RetryTemplate#currentContext() current} on a thread that
 * the engine did not put it on: for integrations that carry an attempt's work to another thread and
 * back, such as a Kotlin coroutine that resumes on another thread after it suspended (the Spring
 * starter installs an attempt's context on each resume of a {@code suspend} function's coroutine
 * this way). Application code takes the context it is handed instead.
 *
 * <p>Scopes nest: the innermost entered is current, and closing it makes current again what was
 * before. Close a scope on the thread that entered it, scopes in the reverse order they were entered
 * (try-with-resources does both). Not thread-safe: one thread enters and closes it.
 */
public final class RetryContextScope implements AutoCloseable {

	/** The engine's stack of contexts of the thread that entered, as {@link RetryTemplate} hands it out. */
	private final Object stack;

	private boolean closed;

	private RetryContextScope(Object stack) {
		this.stack = stack;
	}

	/**
	 * Makes {@code context} the current context on this thread until the scope is closed.
	 * @param context a call's context, or one of its copies' (a hedged call)
	 * @return the scope to close on this thread
	 * @throws NullPointerException if {@code context} is {@code null}
	 */
	public static RetryContextScope enter(RetryContext context) {
		Objects.requireNonNull(context, "context must not be null");
		return new RetryContextScope(RetryTemplate.enterContext(context));
	}

	/**
	 * The current context, as it can be kept for a scope entered later, after the attempt that reads it
	 * returned (a coroutine's next resume). A call's first attempt runs in a context that the engine
	 * reuses for the thread's next call once the attempt returned: it is then a copy of that context as
	 * it is now (its retry count, last failure, attributes), whose later changes reach no call. Any other
	 * attempt's context (a retry's, a hedged call's copy's) is the context itself.
	 * @return the context to keep, or {@code null} outside a retried call
	 */
	public static @Nullable RetryContext capture() {
		return RetryTemplate.contextToKeep();
	}

	/**
	 * Makes current again the context that was current when this scope was entered; a second close does
	 * nothing.
	 * @throws IllegalStateException if called on another thread than the one that entered it
	 */
	@Override
	public void close() {
		if (this.closed) {
			return;
		}
		if (!RetryTemplate.exitContext(this.stack)) {
			throw new IllegalStateException("A RetryContextScope is closed on the thread that entered it");
		}
		this.closed = true;
	}

}
