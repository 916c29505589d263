package dev.retrykit;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;

import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.budget.RetryBudgetConfig;
import dev.retrykit.circuit.CircuitBreakerConfig;
import dev.retrykit.hedging.HedgingConfig;
import dev.retrykit.policy.RetryPolicy;
import dev.retrykit.policy.StatusCodes;
import dev.retrykit.spi.StatusExtractor;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class RetryConfigEqualityTests {

	private static final StatusExtractor HTTP = new NamedExtractor("http");

	private static final Predicate<Object> EMPTY = result -> result == null;

	/** Every setting of a config set to a value other than its default. */
	private static RetryConfigBuilder everySetting() {
		return RetryConfig.builder().maxAttempts(5).maxDuration(Duration.ofSeconds(10))
			.attemptTimeout(Duration.ofSeconds(2))
			.backoff(BackoffPolicy.exponential(Duration.ofMillis(100), 2.0, Duration.ofSeconds(2)))
			.retryOn(List.of(IOException.class)).ignore(List.of(IllegalArgumentException.class))
			.notRecoverable(List.of(IllegalStateException.class)).traverseCauses(false).retryOnResult(EMPTY)
			.httpStatus(StatusCodes.parse("429,500-599", StatusExtractor.Kind.HTTP))
			.statusExtractors(List.of(HTTP)).maxDelayHint(Duration.ofSeconds(30))
			.policy(RetryPolicy.allOf(RetryPolicy.maxAttempts(4), RetryPolicy.byExceptionTypeCountingPerType()
				.on(IOException.class, 2).build()))
			.circuitBreaker(CircuitBreakerConfig.builder().trip("consecutiveFailures > 2").build())
			.budget(RetryBudgetConfig.builder().maxTokens(20).build(), "shared").stateful(true).failbackCapacity(50);
	}

	@Test
	void configsBuiltFromTheSameSettingsAreEqualAndHashAlike() {
		RetryConfig one = everySetting().build();
		RetryConfig other = everySetting().build();
		assertThat(one).isEqualTo(other).hasSameHashCodeAs(other).isNotSameAs(other);
		assertThat(RetryConfig.builder().build()).isEqualTo(RetryConfig.defaults());
	}

	@Test
	void aChangedHedgingMakesADifferentConfig() {
		RetryConfig plain = everySetting().build();
		RetryConfig hedged = everySetting().hedging(HedgingConfig.builder().delay(Duration.ofMillis(50)).build()).build();
		RetryConfig hedgedLater = everySetting().hedging(HedgingConfig.builder().delay(Duration.ofMillis(80)).build())
			.build();
		assertThat(hedged).isNotEqualTo(plain);
		assertThat(plain).isNotEqualTo(hedged);
		assertThat(hedgedLater).isNotEqualTo(hedged);
		RetryConfig hedgedAgain = everySetting().hedging(HedgingConfig.builder().delay(Duration.ofMillis(50)).build())
			.build();
		assertThat(hedgedAgain).isEqualTo(hedged).hasSameHashCodeAs(hedged);
	}

	@Test
	void aChangedStatusExtractorMakesADifferentConfigThoughItsTextIsTheSame() {
		RetryConfig before = everySetting().build();
		RetryConfig after = everySetting().statusExtractors(List.of(HTTP, new NamedExtractor("grpc"))).build();
		assertThat(after).isNotEqualTo(before);
	}

	@Test
	void aChangedMaxDelayHintMakesADifferentConfigAndShowsInItsText() {
		RetryConfig before = everySetting().build();
		RetryConfig after = everySetting().maxDelayHint(Duration.ofMinutes(2)).build();
		assertThat(after).isNotEqualTo(before);
		assertThat(after.toString()).isNotEqualTo(before.toString()).contains("maxDelayHint=2m");
	}

	@Test
	void eachSettingTakesPartInEquality() {
		RetryConfig base = everySetting().build();
		assertThat(List.of(RetryConfig.builder(base).maxAttempts(6).build(),
				RetryConfig.builder(base).maxDuration(null).build(),
				RetryConfig.builder(base).attemptTimeout(null).build(),
				RetryConfig.builder(base).backoff(BackoffPolicy.fixed(Duration.ofMillis(100))).build(),
				RetryConfig.builder(base).retryOn(List.of()).build(),
				RetryConfig.builder(base).ignore(List.of()).build(),
				RetryConfig.builder(base).notRecoverable(List.of()).build(),
				RetryConfig.builder(base).traverseCauses(true).build(),
				RetryConfig.builder(base).retryIf(failure -> true).build(),
				RetryConfig.builder(base).retryOnResult(null).build(),
				RetryConfig.builder(base).httpStatus(null).build(),
				RetryConfig.builder(base).grpcStatus(StatusCodes.parse("14", StatusExtractor.Kind.GRPC)).build(),
				RetryConfig.builder(base).delayHint(failure -> Duration.ZERO).build(),
				RetryConfig.builder(base).policy(RetryPolicy.maxAttempts(4)).build(),
				RetryConfig.builder(base).circuitBreaker(null).build(),
				RetryConfig.builder(base).budget(RetryBudgetConfig.builder().maxTokens(20).build(), "other").build(),
				RetryConfig.builder(base).budget(null, null).build(),
				RetryConfig.builder(base).stateful(false).build(),
				RetryConfig.builder(base).failbackCapacity(51).build()))
			.allSatisfy(changed -> assertThat(changed).isNotEqualTo(base));
	}

	@Test
	void policiesMadeFromTheSameSettingsAreEqual() {
		assertThat(RetryPolicy.maxAttempts(3)).isEqualTo(RetryPolicy.maxAttempts(3))
			.hasSameHashCodeAs(RetryPolicy.maxAttempts(3)).isNotEqualTo(RetryPolicy.maxAttempts(4));
		assertThat(RetryPolicy.anyOf(RetryPolicy.maxAttempts(3), RetryPolicy.never()))
			.isEqualTo(RetryPolicy.anyOf(RetryPolicy.maxAttempts(3), RetryPolicy.never()))
			.isNotEqualTo(RetryPolicy.allOf(RetryPolicy.maxAttempts(3), RetryPolicy.never()));
		assertThat(RetryPolicy.byExceptionTypeCountingAllFailures().on(IOException.class, RetryPolicy.maxAttempts(2))
			.build()).isEqualTo(RetryPolicy.byExceptionTypeCountingAllFailures()
				.on(IOException.class, RetryPolicy.maxAttempts(2)).build())
			.isNotEqualTo(RetryPolicy.byExceptionTypeCountingAllFailures()
				.on(IOException.class, RetryPolicy.maxAttempts(3)).build());
		assertThat(RetryPolicy.byExceptionTypeCountingPerType().on(IOException.class, 2).build())
			.isEqualTo(RetryPolicy.byExceptionTypeCountingPerType().on(IOException.class, 2).build())
			.isNotEqualTo(RetryPolicy.byExceptionTypeCountingPerType().on(IOException.class, 3).build());
	}

	/** An extractor compared by its name, as a Spring bean would be by identity. */
	private record NamedExtractor(String name) implements StatusExtractor {

		@Override
		public Kind kind() {
			return Kind.HTTP;
		}

		@Override
		public int statusOf(Throwable failure) {
			return NO_STATUS;
		}

		@Override
		public String toString() {
			return "extractor";
		}

	}

}
