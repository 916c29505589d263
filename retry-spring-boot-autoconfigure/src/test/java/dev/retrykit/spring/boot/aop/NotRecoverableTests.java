package dev.retrykit.spring.boot.aop;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicInteger;

import dev.retrykit.RetryRegistry;
import dev.retrykit.VirtualTime;
import dev.retrykit.annotation.Recover;
import dev.retrykit.annotation.Retryable;
import dev.retrykit.spring.boot.autoconfigure.RetryAutoConfiguration;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Spring Retry's {@code notRecoverable}: a failure of such a type is retried as usual but never handed to a
 * {@code @Recover} method, set inline on {@code @Retryable} or through {@code not-recoverable}.
 */
class NotRecoverableTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, RetryAutoConfiguration.class))
		.withBean(VirtualTime.class, VirtualTime::new)
		.withBean(Catalog.class, Catalog::new);

	@Test
	void aFailureOfANotRecoverableTypeNamedInTheAnnotationIsRethrownInsteadOfRecovered() {
		this.runner.run(context -> {
			Catalog catalog = context.getBean(Catalog.class);
			assertThatThrownBy(() -> catalog.inline(new FileNotFoundException("gone"))).isInstanceOf(FileNotFoundException.class)
				.hasMessage("gone");
			assertThat(catalog.calls()).isEqualTo(3);
			assertThat(catalog.inline(new IOException("io"))).isEqualTo("recovered io");
		});
	}

	@Test
	void aFailureOfANotRecoverableTypeNamedInThePropertiesIsRethrownInsteadOfRecovered() {
		this.runner.withPropertyValues("retry.instances.catalog.not-recoverable=java.io.FileNotFoundException")
			.run(context -> {
				Catalog catalog = context.getBean(Catalog.class);
				assertThatThrownBy(() -> catalog.named(new FileNotFoundException("gone")))
					.isInstanceOf(FileNotFoundException.class).hasMessage("gone");
				assertThat(catalog.calls()).isEqualTo(3);
				assertThat(catalog.named(new IOException("io"))).isEqualTo("recovered io");
				assertThat(context.getBean(RetryRegistry.class).template("catalog").getConfig().getNotRecoverable())
					.containsExactly(FileNotFoundException.class);
			});
	}

	@Test
	void notRecoverableIsInheritedFromTheBaseConfigAndTheDefaults() {
		this.runner.withPropertyValues("retry.configs.strict.not-recoverable=java.io.FileNotFoundException",
				"retry.instances.catalog.base-config=strict", "retry.defaults.not-recoverable=java.lang.IllegalStateException")
			.run(context -> {
				RetryRegistry registry = context.getBean(RetryRegistry.class);
				assertThat(registry.template("catalog").getConfig().getNotRecoverable())
					.containsExactly(FileNotFoundException.class);
				assertThat(registry.template("undeclared").getConfig().getNotRecoverable())
					.containsExactly(IllegalStateException.class);
			});
	}

	/** A bean whose calls all fail with the failure they are given. */
	static class Catalog {

		private final AtomicInteger calls = new AtomicInteger();

		/** @return the calls so far (a method: the fields of the proxy are not the bean's) */
		public int calls() {
			return this.calls.get();
		}

		@Retryable(notRecoverable = FileNotFoundException.class)
		public String inline(IOException failure) throws IOException {
			this.calls.incrementAndGet();
			throw failure;
		}

		@Retryable("catalog")
		public String named(IOException failure) throws IOException {
			this.calls.incrementAndGet();
			throw failure;
		}

		@Recover
		public String fallback(IOException failure, IOException argument) {
			return "recovered " + failure.getMessage();
		}

	}

}
