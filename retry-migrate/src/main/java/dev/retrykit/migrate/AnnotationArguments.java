package dev.retrykit.migrate;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;
import org.openrewrite.java.tree.Expression;
import org.openrewrite.java.tree.J;

/**
 * The arguments of an annotation as written in the source, by attribute name ({@code value} for the single
 * unnamed one), with the source text of each. Immutable.
 */
final class AnnotationArguments {

	private final Map<String, Expression> byName;

	private final Function<Expression, String> printer;

	private AnnotationArguments(Map<String, Expression> byName, Function<Expression, String> printer) {
		this.byName = byName;
		this.printer = printer;
	}

	/**
	 * @param annotation an annotation
	 * @param printer prints an argument's expression as in the source
	 * @return its arguments
	 */
	static AnnotationArguments of(J.Annotation annotation, Function<Expression, String> printer) {
		Map<String, Expression> byName = new LinkedHashMap<>();
		if (annotation.getArguments() != null) {
			for (Expression argument : annotation.getArguments()) {
				if (argument instanceof J.Assignment assignment && assignment.getVariable() instanceof J.Identifier name) {
					byName.put(name.getSimpleName(), assignment.getAssignment());
				}
				else if (!(argument instanceof J.Empty)) {
					byName.put("value", argument);
				}
			}
		}
		return new AnnotationArguments(byName, printer);
	}

	boolean has(String name) {
		return this.byName.containsKey(name);
	}

	java.util.Set<String> names() {
		return this.byName.keySet();
	}

	@Nullable Expression get(String name) {
		return this.byName.get(name);
	}

	/** @return the source text of the argument, or null when it is absent */
	@Nullable String text(String name) {
		Expression expression = this.byName.get(name);
		return (expression != null) ? this.printer.apply(expression).trim() : null;
	}

	/** @return the argument's literal value (a negative number included), or null when absent or not a literal */
	@Nullable Object literal(String name) {
		Expression expression = this.byName.get(name);
		if (expression instanceof J.Literal literal) {
			return literal.getValue();
		}
		if (expression instanceof J.Unary unary && unary.getOperator() == J.Unary.Type.Negative
				&& unary.getExpression() instanceof J.Literal literal && literal.getValue() instanceof Number number) {
			return (number instanceof Double || number instanceof Float) ? -number.doubleValue() : -number.longValue();
		}
		return null;
	}

	/** @return the elements of an array argument ({@code {A.class, B.class}} or a single {@code A.class}) as source text */
	List<String> elements(String name) {
		Expression expression = this.byName.get(name);
		List<String> elements = new ArrayList<>();
		if (expression instanceof J.NewArray array) {
			if (array.getInitializer() != null) {
				for (Expression element : array.getInitializer()) {
					if (!(element instanceof J.Empty)) {
						elements.add(this.printer.apply(element).trim());
					}
				}
			}
		}
		else if (expression != null) {
			elements.add(this.printer.apply(expression).trim());
		}
		return elements;
	}

	/** @return the argument's nested annotation, or null */
	J.@Nullable Annotation annotation(String name) {
		return (this.byName.get(name) instanceof J.Annotation annotation) ? annotation : null;
	}

	AnnotationArguments nested(J.Annotation annotation) {
		return of(annotation, this.printer);
	}

}
