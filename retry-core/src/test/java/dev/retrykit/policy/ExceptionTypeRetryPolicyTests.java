package dev.retrykit.policy;

import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.util.concurrent.TimeoutException;

import dev.retrykit.context.RetryContext;
import dev.retrykit.RetryTemplate;
import dev.retrykit.VirtualTime;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ExceptionTypeRetryPolicyTests {

	@Test
	void toStringListsTheTypesInTheOrderTheyWereRegistered() {
		ExceptionTypeRetryPolicy policy = RetryPolicy.byExceptionTypeCountingAllFailures()
			.on(SocketTimeoutException.class, RetryPolicy.maxAttempts(5))
			.on(ConnectException.class, RetryPolicy.maxAttempts(2))
			.on(UnknownHostException.class, RetryPolicy.maxAttempts(1))
			.on(SocketException.class, RetryPolicy.maxAttempts(3))
			.on(EOFException.class, RetryPolicy.maxAttempts(4))
			.on(FileNotFoundException.class, RetryPolicy.maxAttempts(6))
			.on(InterruptedIOException.class, RetryPolicy.maxAttempts(7))
			.on(UncheckedIOException.class, RetryPolicy.maxAttempts(8))
			.on(TimeoutException.class, RetryPolicy.maxAttempts(9))
			.on(IOException.class, RetryPolicy.maxAttempts(10))
			.build();
		assertThat(policy.toString()).isEqualTo("byExceptionType{class java.net.SocketTimeoutException=maxAttempts(5), "
				+ "class java.net.ConnectException=maxAttempts(2), class java.net.UnknownHostException=maxAttempts(1), "
				+ "class java.net.SocketException=maxAttempts(3), class java.io.EOFException=maxAttempts(4), "
				+ "class java.io.FileNotFoundException=maxAttempts(6), class java.io.InterruptedIOException=maxAttempts(7), "
				+ "class java.io.UncheckedIOException=maxAttempts(8), class java.util.concurrent.TimeoutException=maxAttempts(9), "
				+ "class java.io.IOException=maxAttempts(10)} otherwise " + RetryPolicy.never());
	}

	@Test
	void theClosestRegisteredSuperclassDecidesWhateverTheRegistrationOrder() throws Exception {
		// SocketTimeoutException extends InterruptedIOException extends IOException.
		ExceptionTypeRetryPolicy broadFirst = RetryPolicy.byExceptionTypeCountingAllFailures()
			.on(IOException.class, RetryPolicy.maxAttempts(2))
			.on(InterruptedIOException.class, RetryPolicy.maxAttempts(4))
			.build();
		ExceptionTypeRetryPolicy narrowFirst = RetryPolicy.byExceptionTypeCountingAllFailures()
			.on(InterruptedIOException.class, RetryPolicy.maxAttempts(4))
			.on(IOException.class, RetryPolicy.maxAttempts(2))
			.build();
		assertThat(attempts(broadFirst, new SocketTimeoutException("slow"))).isEqualTo(4);
		assertThat(attempts(narrowFirst, new SocketTimeoutException("slow"))).isEqualTo(4);
		assertThat(attempts(broadFirst, new EOFException("cut"))).isEqualTo(2);
		assertThat(attempts(narrowFirst, new EOFException("cut"))).isEqualTo(2);
	}

	private static int attempts(RetryPolicy policy, Exception failure) {
		int[] attempts = { 0 };
		RetryTemplate template = RetryTemplate.builder().virtualTime(new VirtualTime()).maxAttempts(-1).policy(policy)
			.build();
		try {
			template.execute((RetryContext context) -> {
				attempts[0]++;
				throw failure;
			});
		}
		catch (Exception expected) {
			// exhausted
		}
		return attempts[0];
	}

}
