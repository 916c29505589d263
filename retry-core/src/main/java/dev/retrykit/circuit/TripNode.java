package dev.retrykit.circuit;

import org.jspecify.annotations.Nullable;

/**
 * A node of a compiled {@link TripExpression}: an immutable tree that is evaluated against counts
 * passed as primitives, so that evaluating it allocates nothing. Each chain of {@code ||} or
 * {@code &&} is one node holding its terms, so the tree is only as deep as the parentheses nest
 * (at most {@link TripExpressionParser#MAX_NESTING}), however many terms the expression has.
 */
abstract class TripNode {

	/** The variables a trip expression may use, with their names as written in expressions. */
	enum Variable {
		CONSECUTIVE_FAILURES("consecutiveFailures"),
		TOTAL_FAILURES("totalFailures"),
		TOTAL_SUCCESSES("totalSuccesses"),
		REQUESTS("requests"),
		FAILURE_RATE("failureRate");

		final String text;

		Variable(String text) {
			this.text = text;
		}

		static @Nullable Variable named(String text) {
			for (Variable variable : values()) {
				if (variable.text.equals(text)) {
					return variable;
				}
			}
			return null;
		}

		double value(long consecutiveFailures, long totalFailures, long totalSuccesses, long requests) {
			switch (this) {
				case CONSECUTIVE_FAILURES:
					return consecutiveFailures;
				case TOTAL_FAILURES:
					return totalFailures;
				case TOTAL_SUCCESSES:
					return totalSuccesses;
				case REQUESTS:
					return requests;
				default:
					return requests == 0 ? 0.0 : totalFailures * 100.0 / requests;
			}
		}
	}

	/** The comparison operators, with their text. */
	enum Operator {
		GREATER(">"), GREATER_OR_EQUAL(">="), LESS("<"), LESS_OR_EQUAL("<="), EQUAL("==");

		final String text;

		Operator(String text) {
			this.text = text;
		}

		boolean apply(double left, double right) {
			switch (this) {
				case GREATER:
					return left > right;
				case GREATER_OR_EQUAL:
					return left >= right;
				case LESS:
					return left < right;
				case LESS_OR_EQUAL:
					return left <= right;
				default:
					return left == right;
			}
		}
	}

	abstract boolean test(long consecutiveFailures, long totalFailures, long totalSuccesses, long requests);

	/**
	 * {@code t1 || t2 || ...} or {@code t1 && t2 && ...}, left to right, short-circuiting: the chain
	 * ends, with that result, at the first term that gives {@code shortCircuit} ({@code true} for
	 * {@code ||}, {@code false} for {@code &&}). One node for the whole chain, evaluated in a loop: a
	 * chain of binary nodes would recurse once per term, and an expression of a few thousand terms
	 * would overflow the stack on every failure.
	 */
	static final class Chain extends TripNode {
		private final TripNode[] terms;

		private final boolean shortCircuit;

		Chain(TripNode[] terms, boolean shortCircuit) {
			this.terms = terms;
			this.shortCircuit = shortCircuit;
		}

		@Override
		boolean test(long consecutiveFailures, long totalFailures, long totalSuccesses, long requests) {
			for (TripNode term : this.terms) {
				if (term.test(consecutiveFailures, totalFailures, totalSuccesses, requests) == this.shortCircuit) {
					return this.shortCircuit;
				}
			}
			return !this.shortCircuit;
		}
	}

	/**
	 * One comparison. Each side is a variable, or a constant when its variable is {@code null}.
	 * Counts are compared as doubles, exact for every count below 2^53.
	 */
	static final class Comparison extends TripNode {
		private final @Nullable Variable leftVariable;
		private final double leftConstant;
		private final Operator operator;
		private final @Nullable Variable rightVariable;
		private final double rightConstant;

		Comparison(@Nullable Variable leftVariable, double leftConstant, Operator operator,
				@Nullable Variable rightVariable, double rightConstant) {
			this.leftVariable = leftVariable;
			this.leftConstant = leftConstant;
			this.operator = operator;
			this.rightVariable = rightVariable;
			this.rightConstant = rightConstant;
		}

		@Override
		boolean test(long consecutiveFailures, long totalFailures, long totalSuccesses, long requests) {
			double left = (this.leftVariable != null)
					? this.leftVariable.value(consecutiveFailures, totalFailures, totalSuccesses, requests)
					: this.leftConstant;
			double right = (this.rightVariable != null)
					? this.rightVariable.value(consecutiveFailures, totalFailures, totalSuccesses, requests)
					: this.rightConstant;
			return this.operator.apply(left, right);
		}
	}

}
