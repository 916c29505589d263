package dev.retrykit.internal;

/** Rethrows any throwable unchanged, checked or not, without wrapping it. */
public final class Sneaky {

	private Sneaky() {
	}

	/**
	 * Throws {@code failure} as it is, checked or not, without declaring it.
	 * @param failure the throwable to rethrow
	 * @param <E> the type the compiler is told it is
	 * @return never returns; declared so that callers can write {@code throw Sneaky.rethrow(t)}
	 * @throws E always: {@code failure} itself
	 */
	@SuppressWarnings("unchecked")
	public static <E extends Throwable> RuntimeException rethrow(Throwable failure) throws E {
		throw (E) failure;
	}

}
