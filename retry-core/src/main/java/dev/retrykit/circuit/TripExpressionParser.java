package dev.retrykit.circuit;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * A recursive-descent parser for trip expressions. Grammar ({@code &&} binds tighter than
 * {@code ||}):
 *
 * <pre>
 * expression := and ( "||" and )*
 * and        := condition ( "&amp;&amp;" condition )*
 * condition  := "(" expression ")" | operand comparator operand
 * operand    := variable | number            (number: digits, optionally "." digits)
 * comparator := "&gt;" | "&gt;=" | "&lt;" | "&lt;=" | "=="
 * </pre>
 *
 * <p>Chains are parsed in loops, so only parentheses recurse, and their depth is bounded
 * ({@link #MAX_NESTING}): an expression of any length parses without deep recursion. The lexer reads
 * one token ahead. Every error names the 0-based position of the offending token
 * and what was expected there. One parser parses one expression; it is not thread-safe.
 */
final class TripExpressionParser {

	/** Bounds recursion so that a hostile expression cannot overflow the stack. */
	static final int MAX_NESTING = 32;

	private static final String VARIABLES = "consecutiveFailures, totalFailures, totalSuccesses, requests and failureRate";

	private enum Token {
		VARIABLE, NUMBER, COMPARATOR, AND, OR, OPEN, CLOSE, END
	}

	private final String source;

	private int position;

	private Token token = Token.END;

	private int tokenStart;

	private TripNode.@Nullable Variable variable;

	private double number;

	private TripNode.@Nullable Operator operator;

	private int nesting;

	private TripExpressionParser(String source) {
		this.source = source;
	}

	static TripNode parse(String source) {
		TripExpressionParser parser = new TripExpressionParser(source);
		parser.advance();
		TripNode root = parser.expression();
		if (parser.token != Token.END) {
			String hint = (parser.token == Token.COMPARATOR) ? " (comparisons cannot be chained; join them with && or ||)" : "";
			throw parser.error(parser.tokenStart, "expected '&&', '||' or the end of the expression, found " + parser.found() + hint);
		}
		return root;
	}

	private TripNode expression() {
		return chain(Token.OR, this::and, true);
	}

	private TripNode and() {
		return chain(Token.AND, this::condition, false);
	}

	/**
	 * One operand, or a chain of operands joined by {@code operator}, as one {@link TripNode.Chain}.
	 * @param shortCircuit the result that ends the chain: {@code true} for {@code ||}, {@code false}
	 * for {@code &&}
	 */
	private TripNode chain(Token operator, Supplier<TripNode> operand, boolean shortCircuit) {
		TripNode first = operand.get();
		if (this.token != operator) {
			return first;
		}
		List<TripNode> terms = new ArrayList<>();
		terms.add(first);
		while (this.token == operator) {
			advance();
			terms.add(operand.get());
		}
		return new TripNode.Chain(terms.toArray(TripNode[]::new), shortCircuit);
	}

	private TripNode condition() {
		if (this.token == Token.OPEN) {
			int open = this.tokenStart;
			if (++this.nesting > MAX_NESTING) {
				throw error(open, "parentheses are nested more than " + MAX_NESTING + " deep");
			}
			advance();
			TripNode inner = expression();
			if (this.token != Token.CLOSE) {
				throw error(this.tokenStart, "expected '&&', '||' or ')' to close the '(' at position " + open + ", found " + found());
			}
			this.nesting--;
			advance();
			return inner;
		}
		if (this.token != Token.VARIABLE && this.token != Token.NUMBER) {
			throw error(this.tokenStart, "expected a comparison such as 'consecutiveFailures > 5' or '(', found " + found());
		}
		TripNode.Variable leftVariable = this.variable;
		double leftConstant = this.number;
		advance();
		TripNode.Operator comparator = this.operator;
		if (this.token != Token.COMPARATOR || comparator == null) {
			throw error(this.tokenStart, "expected a comparison operator (>, >=, <, <= or ==), found " + found());
		}
		advance();
		if (this.token != Token.VARIABLE && this.token != Token.NUMBER) {
			throw error(this.tokenStart, "expected a number or a variable, found " + found());
		}
		TripNode node = new TripNode.Comparison(leftVariable, leftConstant, comparator, this.variable, this.number);
		advance();
		return node;
	}

	private String found() {
		return (this.token == Token.END) ? "the end of the expression"
				: "'" + this.source.substring(this.tokenStart, this.position) + "'";
	}

	/** Reads the next token into the token fields. */
	private void advance() {
		String s = this.source;
		while (this.position < s.length() && Character.isWhitespace(s.charAt(this.position))) {
			this.position++;
		}
		this.tokenStart = this.position;
		this.variable = null;
		this.number = 0;
		this.operator = null;
		if (this.position == s.length()) {
			this.token = Token.END;
			return;
		}
		char c = s.charAt(this.position);
		if (Character.isLetter(c) || c == '_') {
			readVariable();
		}
		else if (c >= '0' && c <= '9') {
			readNumber();
		}
		else {
			readSymbol(c);
		}
	}

	private void readVariable() {
		int end = this.position;
		while (end < this.source.length() && isWordPart(this.source.charAt(end))) {
			end++;
		}
		String word = this.source.substring(this.position, end);
		this.variable = TripNode.Variable.named(word);
		if (this.variable == null) {
			throw error(this.position, unknownVariable(word));
		}
		this.position = end;
		this.token = Token.VARIABLE;
	}

	private void readNumber() {
		String s = this.source;
		int end = skipDigits(this.position);
		if (end < s.length() && s.charAt(end) == '.') {
			int fractionEnd = skipDigits(end + 1);
			if (fractionEnd == end + 1) {
				throw error(this.position, "expected a digit after the '.' of the number '" + s.substring(this.position, end + 1) + "'");
			}
			end = fractionEnd;
		}
		if (end < s.length() && (isWordPart(s.charAt(end)) || s.charAt(end) == '.')) {
			int wordEnd = end;
			while (wordEnd < s.length() && (isWordPart(s.charAt(wordEnd)) || s.charAt(wordEnd) == '.')) {
				wordEnd++;
			}
			throw error(this.position, "'" + s.substring(this.position, wordEnd) + "' is not a number; write numbers as 5 or 12.5");
		}
		this.number = Double.parseDouble(s.substring(this.position, end));
		this.position = end;
		this.token = Token.NUMBER;
	}

	private void readSymbol(char c) {
		char next = (this.position + 1 < this.source.length()) ? this.source.charAt(this.position + 1) : '\0';
		switch (c) {
			case '>':
				comparator(next == '=' ? TripNode.Operator.GREATER_OR_EQUAL : TripNode.Operator.GREATER);
				return;
			case '<':
				comparator(next == '=' ? TripNode.Operator.LESS_OR_EQUAL : TripNode.Operator.LESS);
				return;
			case '=':
				if (next != '=') {
					throw error(this.position, "expected '==' (a single '=' is not a comparison)");
				}
				comparator(TripNode.Operator.EQUAL);
				return;
			case '&':
				pair(next, '&', Token.AND);
				return;
			case '|':
				pair(next, '|', Token.OR);
				return;
			case '(':
				single(Token.OPEN);
				return;
			case ')':
				single(Token.CLOSE);
				return;
			case '!':
				throw error(this.position, "negation and '!=' are not supported; write the opposite comparison instead");
			case '.':
				if (next >= '0' && next <= '9') {
					throw error(this.position, "expected a digit before the '.'; write 0.5 rather than .5");
				}
				throw error(this.position, unexpected(c));
			default:
				throw error(this.position, unexpected(c));
		}
	}

	private void comparator(TripNode.Operator op) {
		this.operator = op;
		this.position += op.text.length();
		this.token = Token.COMPARATOR;
	}

	private void pair(char next, char c, Token kind) {
		if (next != c) {
			throw error(this.position, "expected '" + c + c + "' (a single '" + c + "' is not an operator)");
		}
		this.position += 2;
		this.token = kind;
	}

	private void single(Token kind) {
		this.position++;
		this.token = kind;
	}

	private int skipDigits(int from) {
		int end = from;
		while (end < this.source.length() && this.source.charAt(end) >= '0' && this.source.charAt(end) <= '9') {
			end++;
		}
		return end;
	}

	private static boolean isWordPart(char c) {
		return Character.isLetterOrDigit(c) || c == '_';
	}

	private static String unexpected(char c) {
		String shown = (c < ' ' || c == 0x7f) ? String.format(Locale.ROOT, "\\u%04x", (int) c) : String.valueOf(c);
		return "unexpected character '" + shown + "'; a trip expression is made of the variables " + VARIABLES
				+ ", numbers, the comparisons > >= < <= ==, && and ||, and parentheses";
	}

	private static String unknownVariable(String word) {
		String lower = word.toLowerCase(Locale.ROOT);
		if (lower.equals("and") || lower.equals("or")) {
			return "'" + word + "' is not an operator; write " + (lower.equals("and") ? "&&" : "||") + " instead";
		}
		String closest = null;
		int best = 3;
		for (TripNode.Variable candidate : TripNode.Variable.values()) {
			int distance = editDistance(lower, candidate.text.toLowerCase(Locale.ROOT));
			if (distance < best) {
				best = distance;
				closest = candidate.text;
			}
		}
		String suggestion = (closest != null) ? " (did you mean '" + closest + "'?)" : "";
		return "unknown variable '" + word + "'" + suggestion + "; the variables are " + VARIABLES;
	}

	/** Levenshtein distance, for the "did you mean" hint. */
	private static int editDistance(String a, String b) {
		int[] previous = new int[b.length() + 1];
		int[] current = new int[b.length() + 1];
		for (int j = 0; j <= b.length(); j++) {
			previous[j] = j;
		}
		for (int i = 1; i <= a.length(); i++) {
			current[0] = i;
			for (int j = 1; j <= b.length(); j++) {
				int substitution = previous[j - 1] + ((a.charAt(i - 1) == b.charAt(j - 1)) ? 0 : 1);
				current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
			}
			int[] swap = previous;
			previous = current;
			current = swap;
		}
		return previous[b.length()];
	}

	private IllegalArgumentException error(int at, String detail) {
		return invalid(this.source, at, detail);
	}

	/**
	 * Builds the exception: a first line with the expression, the position and the reason, then the
	 * expression again with a caret under the position. Control characters (tabs, line breaks from a
	 * YAML block) are shown as spaces so that the caret stays aligned.
	 */
	static IllegalArgumentException invalid(String source, int at, String detail) {
		StringBuilder shown = new StringBuilder(source.length());
		for (int i = 0; i < source.length(); i++) {
			char c = source.charAt(i);
			shown.append(c < ' ' ? ' ' : c);
		}
		String message = "Invalid trip expression '" + shown + "' at position " + at + ": " + detail
				+ "\n  " + shown + "\n  " + " ".repeat(at) + "^";
		return new IllegalArgumentException(message);
	}

}
