package dev.retrykit.spring.boot.aop;

import java.util.Arrays;

import org.jspecify.annotations.Nullable;

/**
 * The default key of a stateful call or failback task: the method's generic signature and the call's
 * arguments. Equal when the signatures are equal and the arguments are equal (arrays by content).
 *
 * <p>Its {@link #toString()} is the form a cluster shares the key in, so it is unambiguous: each argument is
 * written in quotes with {@code \} and {@code "} escaped ({@code null} without quotes), so that
 * {@code m("a, b", "c")} and {@code m("a", "b, c")} never share a count, and arrays are written by content.
 * For example {@code public void com.example.Orders.ship(java.lang.String,int) ["o-1", "2"]}. It is the
 * same on every replica as long as each argument's own {@code toString()} is (strings, numbers, records,
 * enums, {@code java.time} values, collections of them), which startup checks when the cluster is enabled.
 * Immutable when the arguments are; computed once.
 */
final class DefaultMethodKey {

	private final String signature;

	private final @Nullable Object[] arguments;

	private final int hash;

	private @Nullable String text;

	DefaultMethodKey(String signature, @Nullable Object[] arguments) {
		this.signature = signature;
		this.arguments = arguments.clone();
		this.hash = 31 * signature.hashCode() + Arrays.deepHashCode(this.arguments);
	}

	@Override
	public boolean equals(@Nullable Object other) {
		return (this == other) || (other instanceof DefaultMethodKey key && this.hash == key.hash
				&& this.signature.equals(key.signature) && Arrays.deepEquals(this.arguments, key.arguments));
	}

	@Override
	public int hashCode() {
		return this.hash;
	}

	@Override
	public String toString() {
		String shown = this.text;
		if (shown == null) {
			StringBuilder text = new StringBuilder(this.signature).append(" [");
			for (int i = 0; i < this.arguments.length; i++) {
				text.append((i > 0) ? ", " : "");
				appendQuoted(text, this.arguments[i]);
			}
			shown = text.append(']').toString();
			this.text = shown;
		}
		return shown;
	}

	private static void appendQuoted(StringBuilder text, @Nullable Object argument) {
		if (argument == null) {
			text.append("null");
			return;
		}
		String value = String.valueOf(argument);
		if (argument.getClass().isArray()) {
			// deepToString handles primitive arrays only as elements: wrap, then drop the wrapper's brackets.
			String wrapped = Arrays.deepToString(new Object[] { argument });
			value = wrapped.substring(1, wrapped.length() - 1);
		}
		text.append('"');
		for (int i = 0; i < value.length(); i++) {
			char c = value.charAt(i);
			if (c == '"' || c == '\\') {
				text.append('\\');
			}
			text.append(c);
		}
		text.append('"');
	}

}
