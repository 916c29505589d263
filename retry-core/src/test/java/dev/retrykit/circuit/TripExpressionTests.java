package dev.retrykit.circuit;

import java.util.stream.Stream;

import dev.retrykit.testing.Allocations;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

class TripExpressionTests {

	/** Evaluates with the given failures and successes, requests being their sum. */
	private static boolean eval(String expression, long consecutiveFailures, long totalFailures, long totalSuccesses) {
		return TripExpression.parse(expression).evaluate(consecutiveFailures, totalFailures, totalSuccesses,
				totalFailures + totalSuccesses);
	}

	@Test
	void defaultExpressionTripsAfterTheSixthConsecutiveFailure() {
		assertThat(eval("consecutiveFailures > 5", 5, 5, 0)).isFalse();
		assertThat(eval("consecutiveFailures > 5", 6, 6, 0)).isTrue();
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', value = {
		"consecutiveFailures > 2 | true",
		"consecutiveFailures >= 3 | true",
		"consecutiveFailures < 3 | false",
		"consecutiveFailures <= 3 | true",
		"consecutiveFailures == 3 | true",
		"totalFailures == 4 | true",
		"totalSuccesses == 6 | true",
		"requests == 10 | true",
		"failureRate == 40 | true",
		"failureRate > 39.99 | true",
		"failureRate >= 40.0 | true",
		"failureRate > 40.5 | false",
		"5 < totalSuccesses | true",
		"totalSuccesses > totalFailures | true",
		"3 == 3 | true",
	})
	void comparesVariablesAndLiterals(String expression, boolean expected) {
		assertThat(eval(expression, 3, 4, 6)).isEqualTo(expected);
	}

	@Test
	void failureRateIsZeroWithoutRequests() {
		assertThat(eval("failureRate == 0", 0, 0, 0)).isTrue();
		assertThat(eval("failureRate > 0", 0, 0, 0)).isFalse();
	}

	@Test
	void failureRateUsesDecimalPrecision() {
		// 2 failures of 3 requests: 66.666...%
		assertThat(eval("failureRate > 66.6", 0, 2, 1)).isTrue();
		assertThat(eval("failureRate > 66.7", 0, 2, 1)).isFalse();
		assertThat(eval("requests >= 3 && failureRate >= 66.66", 0, 2, 1)).isTrue();
	}

	@Test
	void andBindsTighterThanOr() {
		// true || (false && false) is true; (true || false) && false would be false
		String expression = "consecutiveFailures > 0 || totalFailures > 100 && totalSuccesses > 100";
		assertThat(eval(expression, 1, 1, 0)).isTrue();
		// (false && true) || true
		assertThat(eval("totalFailures > 100 && consecutiveFailures > 0 || totalSuccesses == 0", 1, 1, 0)).isTrue();
	}

	@Test
	void parenthesesOverridePrecedence() {
		String expression = "(consecutiveFailures > 0 || totalFailures > 100) && totalSuccesses > 100";
		assertThat(eval(expression, 1, 1, 0)).isFalse();
		assertThat(eval(expression, 1, 1, 101)).isTrue();
		assertThat(eval("((((consecutiveFailures > 0))))", 1, 1, 0)).isTrue();
	}

	@Test
	void whitespaceIsOptionalAndMayBeTabsOrLineBreaks() {
		assertThat(eval("consecutiveFailures>5&&totalFailures>=6||(requests==0)", 0, 0, 0)).isTrue();
		assertThat(eval("\tconsecutiveFailures\n>\r\n5  ", 6, 6, 0)).isTrue();
	}

	@Test
	void chainsOfOrAndAndAreEvaluatedLeftToRight() {
		assertThat(eval("requests == 1 || requests == 2 || requests == 3", 0, 3, 0)).isTrue();
		assertThat(eval("requests > 0 && requests > 1 && requests > 5", 0, 3, 0)).isFalse();
	}

	@Test
	void toStringReturnsTheSourceAndEqualityFollowsIt() {
		String source = "  requests >= 10 && failureRate > 50 ";
		TripExpression expression = TripExpression.parse(source);
		assertThat(expression).hasToString(source);
		assertThat(expression).isEqualTo(TripExpression.parse(source)).hasSameHashCodeAs(TripExpression.parse(source));
		assertThat(expression).isNotEqualTo(TripExpression.parse("requests >= 10 && failureRate > 50"));
	}

	@Test
	void evaluationAllocatesNothing() {
		TripExpression expression = TripExpression.parse("(requests >= 10 && failureRate > 50.5) || consecutiveFailures > 5");
		boolean any = false;
		for (int i = 0; i < 20_000; i++) {
			any |= expression.evaluate(i % 7, i % 13, i % 11, i % 13 + i % 11);
		}
		long allocated = Allocations.measure(() -> {
			boolean sink = false;
			for (int i = 0; i < 100_000; i++) {
				sink |= expression.evaluate(i % 7, i % 13, i % 11, i % 13 + i % 11);
			}
			return sink;
		});
		assertThat(any).isTrue();
		assertThat(allocated).isLessThan(1024);
	}

	@Test
	void rejectsNull() {
		assertThatNullPointerException().isThrownBy(() -> TripExpression.parse(null))
				.withMessage("expression must not be null");
	}

	@Test
	void doubledOperatorIsReportedWithPositionAndCaret() {
		assertThatIllegalArgumentException().isThrownBy(() -> TripExpression.parse("consecutiveFailures >> 5"))
				.withMessage("Invalid trip expression 'consecutiveFailures >> 5' at position 21: "
						+ "expected a number or a variable, found '>'\n"
						+ "  consecutiveFailures >> 5\n"
						+ "                       ^");
	}

	static Stream<Arguments> invalidExpressions() {
		return Stream.of(
				Arguments.of("", 0,
						"expected a comparison such as 'consecutiveFailures > 5' or '(', found the end of the expression"),
				Arguments.of("   ", 3,
						"expected a comparison such as 'consecutiveFailures > 5' or '(', found the end of the expression"),
				Arguments.of("consecutiveFailures", 19,
						"expected a comparison operator (>, >=, <, <= or ==), found the end of the expression"),
				Arguments.of("consecutiveFailures > ", 22,
						"expected a number or a variable, found the end of the expression"),
				Arguments.of("consecutiveFailures 5", 20,
						"expected a comparison operator (>, >=, <, <= or ==), found '5'"),
				Arguments.of("consecutiveFailures > 5 &&", 26,
						"expected a comparison such as 'consecutiveFailures > 5' or '(', found the end of the expression"),
				Arguments.of("&& consecutiveFailures > 5", 0,
						"expected a comparison such as 'consecutiveFailures > 5' or '(', found '&&'"),
				Arguments.of("consecutiveFailures > 5 5", 24,
						"expected '&&', '||' or the end of the expression, found '5'"),
				Arguments.of("consecutiveFailures > 5)", 23,
						"expected '&&', '||' or the end of the expression, found ')'"),
				Arguments.of("consecutiveFailures > 5 > 3", 24,
						"expected '&&', '||' or the end of the expression, found '>' (comparisons cannot be chained; join them with && or ||)"),
				Arguments.of("(consecutiveFailures > 5", 24,
						"expected '&&', '||' or ')' to close the '(' at position 0, found the end of the expression"),
				Arguments.of("(requests > 1 || (totalFailures > 2)", 36,
						"expected '&&', '||' or ')' to close the '(' at position 0, found the end of the expression"),
				Arguments.of("()", 1,
						"expected a comparison such as 'consecutiveFailures > 5' or '(', found ')'"),
				Arguments.of("consecutiveFailures = 5", 20,
						"expected '==' (a single '=' is not a comparison)"),
				Arguments.of("consecutiveFailures > 5 & requests > 1", 24,
						"expected '&&' (a single '&' is not an operator)"),
				Arguments.of("consecutiveFailures > 5 | requests > 1", 24,
						"expected '||' (a single '|' is not an operator)"),
				Arguments.of("consecutiveFailures != 5", 20,
						"negation and '!=' are not supported; write the opposite comparison instead"),
				Arguments.of("failureRate > 50.", 14,
						"expected a digit after the '.' of the number '50.'"),
				Arguments.of("failureRate > .5", 14,
						"expected a digit before the '.'; write 0.5 rather than .5"),
				Arguments.of("failureRate > 1e3", 14,
						"'1e3' is not a number; write numbers as 5 or 12.5"),
				Arguments.of("failureRate > 1.2.3", 14,
						"'1.2.3' is not a number; write numbers as 5 or 12.5"),
				Arguments.of("consecutiveFailures > 5 and requests > 1", 24,
						"'and' is not an operator; write && instead"),
				Arguments.of("consecutiveFailures > 5 OR requests > 1", 24,
						"'OR' is not an operator; write || instead"));
	}

	@ParameterizedTest
	@MethodSource("invalidExpressions")
	void reportsWhatWasExpectedAndWhere(String expression, int position, String reason) {
		assertThatIllegalArgumentException().isThrownBy(() -> TripExpression.parse(expression))
				.withMessageStartingWith("Invalid trip expression '" + expression + "' at position " + position + ": " + reason + "\n")
				.withMessageEndingWith("\n  " + " ".repeat(position) + "^");
	}

	@Test
	void unknownVariableSuggestsTheClosestAndListsAll() {
		assertThatIllegalArgumentException().isThrownBy(() -> TripExpression.parse("consecutivefailure > 5"))
				.withMessageStartingWith("Invalid trip expression 'consecutivefailure > 5' at position 0: "
						+ "unknown variable 'consecutivefailure' (did you mean 'consecutiveFailures'?); the variables are "
						+ "consecutiveFailures, totalFailures, totalSuccesses, requests and failureRate\n");
		assertThatIllegalArgumentException().isThrownBy(() -> TripExpression.parse("requests > 1 && errors > 2"))
				.withMessageStartingWith("Invalid trip expression 'requests > 1 && errors > 2' at position 16: "
						+ "unknown variable 'errors'; the variables are "
						+ "consecutiveFailures, totalFailures, totalSuccesses, requests and failureRate\n");
	}

	@Test
	void unexpectedCharacterListsTheLanguage() {
		assertThatIllegalArgumentException().isThrownBy(() -> TripExpression.parse("consecutiveFailures > -1"))
				.withMessage("Invalid trip expression 'consecutiveFailures > -1' at position 22: unexpected character '-'; "
						+ "a trip expression is made of the variables consecutiveFailures, totalFailures, totalSuccesses, "
						+ "requests and failureRate, numbers, the comparisons > >= < <= ==, && and ||, and parentheses\n"
						+ "  consecutiveFailures > -1\n"
						+ "                        ^");
	}

	@Test
	void lineBreaksAndTabsAreShownAsSpacesSoTheCaretLinesUp() {
		assertThatIllegalArgumentException().isThrownBy(() -> TripExpression.parse("requests > 1 &&\n\tfoo > 2"))
				.withMessageStartingWith("Invalid trip expression 'requests > 1 &&  foo > 2' at position 17: unknown variable 'foo'")
				.withMessageEndingWith("\n  requests > 1 &&  foo > 2\n                   ^");
	}

	@Test
	void limitsNesting() {
		String deep = "(".repeat(33) + "requests > 1" + ")".repeat(33);
		assertThatIllegalArgumentException().isThrownBy(() -> TripExpression.parse(deep))
				.withMessageStartingWith("Invalid trip expression '" + deep + "' at position 32: parentheses are nested more than 32 deep\n");
		String allowed = "(".repeat(32) + "requests > 1" + ")".repeat(32);
		assertThat(TripExpression.parse(allowed).evaluate(0, 0, 2, 2)).isTrue();
	}

}
