package dev.retrykit.circuit;

import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * The condition that opens a closed {@link CircuitBreaker}, written in Dapr's trip-expression
 * language, for example {@code consecutiveFailures > 5} or
 * {@code requests >= 20 && failureRate > 50.5 || consecutiveFailures > 10}.
 *
 * <p>Language:
 * <ul>
 * <li>variables, evaluated over the counts of the breaker's current window (see
 * {@link CircuitBreakerConfig#getInterval()}):
 * <ul>
 * <li>{@code consecutiveFailures} — failures since the last success;</li>
 * <li>{@code totalFailures}, {@code totalSuccesses} — outcomes recorded in the window;</li>
 * <li>{@code requests} — calls whose outcome was recorded, {@code totalFailures + totalSuccesses}.
 * Unlike Dapr, which counts a request when it is admitted, calls still in flight (or released
 * without an outcome) are not counted: admission then writes no shared state, and
 * {@code failureRate} is exact;</li>
 * <li>{@code failureRate} — {@code totalFailures * 100 / requests}, a percentage from 0 to 100, and 0
 * while there are no requests;</li>
 * </ul></li>
 * <li>numbers: integers ({@code 5}) and decimals ({@code 12.5}); no signs or exponents;</li>
 * <li>comparisons {@code > >= < <= ==} between two operands (variables or numbers);</li>
 * <li>{@code &&} and {@code ||}, where {@code &&} binds tighter, and parentheses;</li>
 * <li>whitespace anywhere between tokens.</li>
 * </ul>
 *
 * <p>An expression is parsed once into a small tree of immutable nodes, each chain of {@code ||}
 * or {@code &&} one node, so that the tree is only as deep as the parentheses nest (at most 32
 * levels) and an expression of thousands of terms evaluates without deep recursion; {@link #evaluate}
 * walks it without allocating. Instances are immutable and thread-safe. Two expressions are equal when their
 * source texts are equal.
 */
public final class TripExpression {

	private final String source;

	private final TripNode root;

	private TripExpression(String source, TripNode root) {
		this.source = source;
		this.root = root;
	}

	/**
	 * Parses an expression.
	 * @param expression the expression text
	 * @return the compiled expression
	 * @throws NullPointerException if {@code expression} is {@code null}
	 * @throws IllegalArgumentException if the text is not a valid expression: the message quotes it,
	 * gives the 0-based position of the error, says what was expected there (listing the variables when
	 * an unknown name is used) and repeats the expression with a caret under the position, e.g.
	 * <pre>
	 * Invalid trip expression 'consecutiveFailures &gt;&gt; 5' at position 21: expected a number or a variable, found '&gt;'
	 *   consecutiveFailures &gt;&gt; 5
	 *                        ^
	 * </pre>
	 */
	public static TripExpression parse(String expression) {
		Objects.requireNonNull(expression, "expression must not be null");
		return new TripExpression(expression, TripExpressionParser.parse(expression));
	}

	/**
	 * Evaluates the expression over counts. Allocates nothing; {@code failureRate} is derived from
	 * {@code totalFailures} and {@code requests}.
	 * @param consecutiveFailures failures since the last success
	 * @param totalFailures failures in the window
	 * @param totalSuccesses successes in the window
	 * @param requests calls with a recorded outcome in the window (normally failures + successes)
	 * @return whether the condition holds
	 */
	public boolean evaluate(long consecutiveFailures, long totalFailures, long totalSuccesses, long requests) {
		return this.root.test(consecutiveFailures, totalFailures, totalSuccesses, requests);
	}

	/** @return the source text, exactly as parsed */
	@Override
	public String toString() {
		return this.source;
	}

	@Override
	public boolean equals(@Nullable Object other) {
		return (this == other) || (other instanceof TripExpression && this.source.equals(((TripExpression) other).source));
	}

	@Override
	public int hashCode() {
		return this.source.hashCode();
	}

}
