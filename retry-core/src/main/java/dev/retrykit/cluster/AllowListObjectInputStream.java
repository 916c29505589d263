package dev.retrykit.cluster;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InvalidClassException;
import java.io.ObjectInputStream;
import java.io.ObjectStreamClass;

/**
 * Reads one Java-serialized attribute value, consulting the allow-list by a class's name before any
 * class loader is asked for it: {@link ObjectInputStream} calls {@link #resolveClass} first and its
 * filter only with the class it returned, so a filter alone lets the stream load (and link) any class
 * it names, and a class whose superclass is missing throws {@link NoClassDefFoundError} before the
 * filter is ever asked. Classes are loaded without being initialised, in the loader of the latest
 * application frame and then in the thread's context class loader (Boot's fat jars). Proxies are
 * refused. The filter is set before the first object is read. Not thread-safe: one per value.
 */
final class AllowListObjectInputStream extends ObjectInputStream {

	private final AttributeAllowList allowList;

	AllowListObjectInputStream(byte[] bytes, AttributeAllowList allowList) throws IOException {
		super(new ByteArrayInputStream(bytes));
		this.allowList = allowList;
		setObjectInputFilter(allowList::check);
	}

	@Override
	protected Class<?> resolveClass(ObjectStreamClass description) throws IOException, ClassNotFoundException {
		String name = description.getName();
		if (!this.allowList.admits(name)) {
			throw new InvalidClassException(name, "not allowed to travel as a context attribute");
		}
		try {
			return super.resolveClass(description);
		}
		catch (ClassNotFoundException ex) {
			ClassLoader loader = Thread.currentThread().getContextClassLoader();
			if (loader == null) {
				throw ex;
			}
			try {
				return Class.forName(name, false, loader);
			}
			catch (ClassNotFoundException notThere) {
				throw new InvalidClassException(name, "not found on this replica");
			}
		}
	}

	@Override
	protected Class<?> resolveProxyClass(String[] interfaces) throws IOException {
		throw new InvalidClassException("a proxy", "proxies never travel as context attributes");
	}

}
