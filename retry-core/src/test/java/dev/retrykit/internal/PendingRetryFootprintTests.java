package dev.retrykit.internal;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A million async calls may wait for their retries at once, and the target is at most 150 bytes each
 * (BENCHMARKS.md, measured by {@code PendingRetriesScale}). What one holds while it waits on the default
 * scheduler: the call (the caller's future), its context, the scheduler's task and the wheel's node.
 * Each size here is what HotSpot lays out with compressed oops and class pointers (a 12-byte header,
 * references of 4 bytes, the object aligned to 8), computed from the declared fields, so that a field
 * added to any of them fails here rather than only in a benchmark run.
 */
class PendingRetryFootprintTests {

	@Test
	void aPendingAsyncRetryFitsIn150Bytes() throws ClassNotFoundException {
		long call = shallowSize(AsyncRetry.class);
		long context = shallowSize(MutableRetryContext.class);
		long task = shallowSize(NextAttempt.class);
		long node = shallowSize(Class.forName("dev.retrykit.scheduler.WheelTimeout"));

		assertThat(call).as("AsyncRetry").isEqualTo(40);
		assertThat(context).as("MutableRetryContext").isEqualTo(56);
		assertThat(task).as("NextAttempt").isEqualTo(16);
		assertThat(node).as("WheelTimeout").isEqualTo(32);
		assertThat(call + context + task + node).isLessThanOrEqualTo(150);
	}

	@Test
	void theSizeRuleCountsInheritedFieldsAndAlignment() {
		assertThat(shallowSize(Object.class)).isEqualTo(16);
		assertThat(shallowSize(OneLong.class)).isEqualTo(24);
		assertThat(shallowSize(IntAndLong.class)).isEqualTo(24);
		assertThat(shallowSize(TwoRefsMore.class)).isEqualTo(32);
	}

	private static long shallowSize(Class<?> type) {
		long bytes = 12;
		for (Class<?> c = type; c != null; c = c.getSuperclass()) {
			for (Field field : c.getDeclaredFields()) {
				if (!Modifier.isStatic(field.getModifiers())) {
					bytes += size(field.getType());
				}
			}
		}
		return (bytes + 7) & ~7L;
	}

	private static int size(Class<?> type) {
		if (type == long.class || type == double.class) {
			return 8;
		}
		if (type == int.class || type == float.class || !type.isPrimitive()) {
			return 4;
		}
		return (type == short.class || type == char.class) ? 2 : 1;
	}

	static class OneLong {

		long value;

	}

	static class IntAndLong {

		int count;

		long value;

	}

	static class TwoRefsMore extends IntAndLong {

		Object first;

		Object second;

	}

}
