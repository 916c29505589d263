package dev.retrykit.spring.boot.aop;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.lang.reflect.Method;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class RetryableMethodExceptionTests {

	@Test
	void survivesJavaSerializationWithItsMessageActionAndMethodDescription() throws Exception {
		Method method = Sample.class.getDeclaredMethod("fetch", String.class, int.class);
		RetryableMethodException failure = new RetryableMethodException(method, "no @Recover method named 'x' exists",
				"Name an existing @Recover method.", new IllegalStateException("cause"));

		RetryableMethodException copy = roundTrip(failure);

		assertThat(copy).hasMessage(failure.getMessage()).hasCauseInstanceOf(IllegalStateException.class);
		assertThat(copy.getMethodDescription()).isEqualTo(Sample.class.getName() + ".fetch(String, int)")
			.isEqualTo(failure.getMethodDescription());
		assertThat(failure.getMethod()).isEqualTo(method);
		assertThat(copy.getMethod()).isNull();
		assertThat(copy.analysis().getAction()).isEqualTo("Name an existing @Recover method.");
	}

	@Test
	void withoutACauseHasNoneAndKeepsItsAction() throws Exception {
		Method method = Sample.class.getDeclaredMethod("fetch", String.class, int.class);
		RetryableMethodException failure = new RetryableMethodException(method, "no @Recover method named 'x' exists",
				"Name an existing @Recover method.", null);

		assertThat(failure).hasNoCause();
		assertThat(failure.analysis().getAction()).isEqualTo("Name an existing @Recover method.");
		assertThat(roundTrip(failure)).hasMessage(failure.getMessage()).hasNoCause();
	}

	private static RetryableMethodException roundTrip(RetryableMethodException failure)
			throws IOException, ClassNotFoundException {
		ByteArrayOutputStream bytes = new ByteArrayOutputStream();
		try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
			out.writeObject(failure);
		}
		try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
			return (RetryableMethodException) in.readObject();
		}
	}

	static class Sample {

		String fetch(String sku, int count) {
			return sku + count;
		}

	}

}
