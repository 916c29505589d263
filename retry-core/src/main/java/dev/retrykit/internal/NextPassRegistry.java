package dev.retrykit.internal;

import java.util.function.Function;

import org.jspecify.annotations.Nullable;

/** Where the timing wheel class leaves the accessor of its {@link NextPassScheduler} views. */
final class NextPassRegistry {

	/** Until a timing wheel class is loaded no scheduler is one. */
	static volatile Function<Object, @Nullable NextPassScheduler> views = scheduler -> null;

	private NextPassRegistry() {
	}

}
