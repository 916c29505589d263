package dev.retrykit.spring.boot.aop;

import io.micrometer.context.ContextRegistry;
import io.micrometer.context.ContextSnapshot;
import io.micrometer.context.ContextSnapshotFactory;
import io.micrometer.context.integration.Slf4jThreadLocalAccessor;
import org.jspecify.annotations.Nullable;

import org.springframework.util.ClassUtils;

/**
 * The calling thread's context, captured when an async or failback call starts and restored around each
 * of its attempts that runs on another thread (an executor thread after a backoff), so that user code
 * sees what the caller saw: every value of Micrometer Context Propagation's global registry (the
 * observation and so the trace, Spring Security's context, any registered {@code ThreadLocalAccessor})
 * and the whole SLF4J MDC. Values the caller did not have are cleared for the attempt. Everything is put
 * back as it was when the attempt ends.
 *
 * <p>Without {@code io.micrometer:context-propagation} on the classpath nothing is captured. The context
 * is restored on the calling thread too (the first attempt, an attempt run by a test's virtual time):
 * that thread may have moved on to another context by then. Immutable; a captured context may be
 * restored on any number of threads at once.
 */
final class CallerContext {

	private static final CallerContext NONE = new CallerContext(null, null);

	private static final Scope NO_SCOPE = () -> {
	};

	private static final boolean PROPAGATION_PRESENT = ClassUtils
		.isPresent("io.micrometer.context.ContextSnapshotFactory", CallerContext.class.getClassLoader());

	private static final boolean MDC_PRESENT = PROPAGATION_PRESENT
			&& ClassUtils.isPresent("org.slf4j.MDC", CallerContext.class.getClassLoader());

	private final @Nullable ContextSnapshot registered;

	private final @Nullable ContextSnapshot mdc;

	private CallerContext(@Nullable ContextSnapshot registered, @Nullable ContextSnapshot mdc) {
		this.registered = registered;
		this.mdc = mdc;
	}

	/**
	 * @return the calling thread's context, or an empty one without Context Propagation
	 */
	static CallerContext capture() {
		if (!PROPAGATION_PRESENT) {
			return NONE;
		}
		return new CallerContext(Snapshots.REGISTERED.captureAll(),
				MDC_PRESENT ? Snapshots.MDC.captureAll() : null);
	}

	/**
	 * @return a context that restores nothing, for attempts that run in whatever context their thread has
	 */
	static CallerContext none() {
		return NONE;
	}

	/**
	 * Puts the captured context on the current thread until the scope is closed.
	 * @return the scope to close when the attempt ends
	 */
	Scope restore() {
		ContextSnapshot registered = this.registered;
		if (registered == null) {
			return NO_SCOPE;
		}
		ContextSnapshot mdc = this.mdc;
		ContextSnapshot.Scope mdcScope = (mdc != null) ? mdc.setThreadLocals() : null;
		ContextSnapshot.Scope registeredScope = registered.setThreadLocals();
		return () -> {
			// Closed in the reverse order, so a trace's MDC entries are gone before the caller's MDC is replaced.
			registeredScope.close();
			if (mdcScope != null) {
				mdcScope.close();
			}
		};
	}

	/** A restored context; closing it puts back what the thread had. */
	@FunctionalInterface
	interface Scope extends AutoCloseable {

		@Override
		void close();

	}

	/** Loaded only when Context Propagation is present. */
	private static final class Snapshots {

		/** The application's accessors, as Boot, Reactor and Micrometer Tracing use them. */
		static final ContextSnapshotFactory REGISTERED = ContextSnapshotFactory.builder().clearMissing(true).build();

		/** The whole MDC, through a registry of the starter's own: the global registry is left as it is. */
		static final ContextSnapshotFactory MDC = ContextSnapshotFactory.builder()
			.contextRegistry(new ContextRegistry().registerThreadLocalAccessor(new Slf4jThreadLocalAccessor()))
			.clearMissing(true)
			.build();

	}

}
