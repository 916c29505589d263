package dev.retrykit.circuit;

import java.lang.management.ManagementFactory;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.Assumptions;

/** Measures the bytes the current thread allocates, where the JVM supports it (HotSpot does). */
final class Allocations {

	/** Keeps the work's result alive so that it cannot be optimized away. */
	static volatile boolean sink;

	private Allocations() {
	}

	static long measure(BooleanSupplier work) {
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
