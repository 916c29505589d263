package dev.retrykit.spring.boot.aop;

import java.io.File;
import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Kotlin is optional: a Java application, whose class path has no Kotlin, retries through the aspect
 * without loading any of the starter's Kotlin-only classes. The scenario runs in a class loader of its
 * own that loads the test class path but refuses every {@code kotlin.*} and {@code kotlinx.*} class.
 */
class JavaOnlyApplicationTests {

	private static final String AOP = "dev.retrykit.spring.boot.aop.";

	@Test
	void aJavaApplicationRetriesWithoutKotlinAndNeverLoadsTheKotlinOnlyVariants() throws Exception {
		Thread thread = Thread.currentThread();
		ClassLoader previous = thread.getContextClassLoader();
		try (WithoutKotlin loader = new WithoutKotlin()) {
			// Service loaders (e.g. Context Propagation's accessors) look in the context class loader: this one.
			thread.setContextClassLoader(loader);
			@SuppressWarnings("unchecked")
			Supplier<List<Object>> scenario = (Supplier<List<Object>>) loader.loadClass(AOP + "JavaOnlyScenario")
				.getDeclaredConstructor().newInstance();
			assertThat(scenario.get()).containsExactly("fetched after 2 calls", "recovered sku-1", "async");
			assertThat(loader.loaded(AOP + "RetryableMethodResolver")).isTrue();
			assertThat(loader.loaded(AOP + "KotlinMethodRetries")).isTrue();
			assertThat(loader.loaded(AOP + "KotlinCoroutines")).isFalse();
			assertThat(loader.loaded(AOP + "SuspendMethodRetry")).isFalse();
			assertThat(loader.loaded(AOP + "FlowMethodRetry")).isFalse();
			assertThat(loader.refused).isNotEmpty().allMatch((name) -> name.startsWith("kotlin"));
		}
		finally {
			thread.setContextClassLoader(previous);
		}
	}

	/** The test class path without Kotlin: JDK classes from the platform, the rest loaded here. */
	private static final class WithoutKotlin extends URLClassLoader {

		final Set<String> refused = ConcurrentHashMap.newKeySet();

		WithoutKotlin() throws IOException {
			super(classPath(), ClassLoader.getPlatformClassLoader());
		}

		@Override
		protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
			if (name.startsWith("kotlin.") || name.startsWith("kotlinx.")) {
				this.refused.add(name);
				throw new ClassNotFoundException(name + " (this class loader has no Kotlin)");
			}
			return super.loadClass(name, resolve);
		}

		boolean loaded(String name) {
			return findLoadedClass(name) != null;
		}

		private static URL[] classPath() throws MalformedURLException {
			String path = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
			List<URL> urls = new ArrayList<>();
			for (String entry : path.split(File.pathSeparator)) {
				urls.add(new File(entry).toURI().toURL());
			}
			return urls.toArray(new URL[0]);
		}

	}

}
