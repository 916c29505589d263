package dev.retrykit.policy;

import java.io.IOException;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class RetryPolicyNamesTests {

	@Test
	@SuppressWarnings("deprecation")
	void theFormerNamesBuildTheSamePoliciesAsTheNamesThatSayWhatTheyCount() {
		assertThat(RetryPolicy.byExceptionType().on(IOException.class, RetryPolicy.maxAttempts(3)).build())
			.isInstanceOf(ExceptionTypeRetryPolicy.class)
			.isEqualTo(RetryPolicy.byExceptionTypeCountingAllFailures().on(IOException.class, RetryPolicy.maxAttempts(3))
				.build());
		assertThat(RetryPolicy.perExceptionType().on(IOException.class, 3).build())
			.isInstanceOf(PerExceptionTypeRetryPolicy.class)
			.isEqualTo(RetryPolicy.byExceptionTypeCountingPerType().on(IOException.class, 3).build());
	}

}
