package dev.retrykit.testing;

import java.lang.management.ManagementFactory;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.Assumptions;

/**
 * Measures the bytes the current thread allocates, where the JVM supports it (HotSpot does); elsewhere
 * the calling test is skipped through an {@link Assumptions assumption} rather than failed.
 */
public final class Allocations {

	/** Keeps the work's result alive so that it cannot be optimized away. */
	public static volatile boolean sink;

	private Allocations() {
	}

	/**
	 * Runs {@code work} once on the current thread and returns the bytes it allocated.
	 * @param work the code to measure; its result is kept so that it cannot be optimized away
	 * @return the bytes allocated while {@code work} ran
	 */
	public static long measure(BooleanSupplier work) {
		java.lang.management.ThreadMXBean bean = ManagementFactory.getThreadMXBean();
		Assumptions.assumeTrue(bean instanceof com.sun.management.ThreadMXBean, "allocation counting is not supported");
		com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) bean;
		Assumptions.assumeTrue(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled());
		long id = Thread.currentThread().getId();
		long before = threads.getThreadAllocatedBytes(id);
		sink = work.getAsBoolean();
		return threads.getThreadAllocatedBytes(id) - before;
	}

}
