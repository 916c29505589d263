package dev.retrykit.circuit;

import java.io.IOException;
import java.util.StringJoiner;
import java.util.function.IntFunction;

import dev.retrykit.RetryCallback;
import dev.retrykit.RetryConfig;
import dev.retrykit.RetryTemplate;
import dev.retrykit.VirtualTime;
import dev.retrykit.backoff.BackoffPolicy;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Long but valid expressions (thousands of terms, as a generated configuration may hold) parse and
 * evaluate without deep recursion: evaluating one never throws {@link StackOverflowError}.
 */
class TripExpressionSizeTests {

	private static final int TERMS = 10_000;

	private static String joined(String operator, IntFunction<String> term) {
		StringJoiner joiner = new StringJoiner(" " + operator + " ");
		for (int i = 0; i < TERMS; i++) {
			joiner.add(term.apply(i));
		}
		return joiner.toString();
	}

	private static boolean evaluate(TripExpression expression, long consecutiveFailures, long totalFailures) {
		return expression.evaluate(consecutiveFailures, totalFailures, 0, totalFailures);
	}

	@Test
	void tenThousandOrTermsEvaluateWithoutOverflowingTheStack() {
		TripExpression expression = TripExpression.parse(joined("||", i -> "consecutiveFailures == " + i));

		assertThat(evaluate(expression, 0, 0)).isTrue();
		assertThat(evaluate(expression, TERMS - 1, TERMS - 1)).isTrue();
		assertThat(evaluate(expression, TERMS, TERMS)).isFalse();
	}

	@Test
	void tenThousandAndTermsEvaluateWithoutOverflowingTheStack() {
		TripExpression expression = TripExpression.parse(joined("&&", i -> "totalFailures >= " + i));

		assertThat(evaluate(expression, 0, TERMS - 1)).isTrue();
		assertThat(evaluate(expression, 0, TERMS - 2)).isFalse();
		assertThat(evaluate(expression, 0, 0)).isFalse();
	}

	@Test
	void tenThousandMixedTermsKeepPrecedenceAndEvaluateWithoutOverflowingTheStack() {
		// Pairs joined by ||, each pair an &&: true only where both counts equal the same i.
		String source = joined("||", i -> (i % 2 == 0) ? "consecutiveFailures == " + i + " && totalFailures == " + i
				: "(consecutiveFailures == " + i + " && totalFailures == " + i + ")");
		TripExpression expression = TripExpression.parse(source);

		assertThat(evaluate(expression, 4_242, 4_242)).isTrue();
		assertThat(evaluate(expression, 4_243, 4_243)).isTrue();
		assertThat(evaluate(expression, TERMS - 1, TERMS - 1)).isTrue();
		assertThat(evaluate(expression, 4_242, 4_243)).isFalse();
		assertThat(evaluate(expression, TERMS, TERMS)).isFalse();
	}

	@Test
	void aTemplateWhoseBreakerHasALongTripExpressionKeepsTheCallersOutcomeAndOpens() {
		// Trips at the third consecutive failure, the only term of 10,000 that can hold here.
		String trip = joined("||", i -> "consecutiveFailures == " + (i + 3));
		RetryTemplate template = RetryTemplate.builder().name("long-trip").virtualTime(new VirtualTime())
			.config(RetryConfig.builder().maxAttempts(2).backoff(BackoffPolicy.none())
				.circuitBreaker(CircuitBreakerConfig.builder().trip(trip).build()).build())
			.build();
		RetryCallback<String, IOException> failing = context -> {
			throw new IOException("down");
		};

		assertThatThrownBy(() -> template.execute(failing)).isInstanceOf(IOException.class);
		assertThat(template.getCircuitBreaker().getState()).isEqualTo(CircuitState.CLOSED);
		assertThatThrownBy(() -> template.execute(failing)).isInstanceOf(CircuitOpenException.class)
			.hasMessageContaining("'long-trip' is OPEN");
		assertThat(template.getCircuitBreaker().getState()).isEqualTo(CircuitState.OPEN);
	}

}
