package dev.retrykit.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/** Finds the {@link VarHandle} of a field while a class initialises. */
final class VarHandles {

	private VarHandles() {
	}

	/**
	 * {@return the handle of the field {@code name} of the class that made {@code lookup}}
	 * @param lookup a lookup made by the class that declares the field, with private access
	 * @param name the field's name
	 * @param type the field's type
	 * @throws ExceptionInInitializerError if there is no such field
	 */
	static VarHandle field(MethodHandles.Lookup lookup, String name, Class<?> type) {
		try {
			return lookup.findVarHandle(lookup.lookupClass(), name, type);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

}
