package dev.retrykit.spring.boot.autoconfigure;

import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

import dev.retrykit.RetryRegistry;
import dev.retrykit.RetryTemplate;
import dev.retrykit.VirtualTime;
import dev.retrykit.annotation.Failback;
import dev.retrykit.annotation.Recover;
import dev.retrykit.annotation.Retryable;
import org.junit.jupiter.api.Test;

import org.springframework.aop.framework.ReflectiveMethodInvocation;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.TypeReference;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.aot.test.generate.TestGenerationContext;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.test.tools.CompileWithForkedClassLoader;
import org.springframework.core.test.tools.TestCompiler;
import org.springframework.javapoet.ClassName;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Spring AOT processing of a context with declared instances, as {@code process-aot} does for an
 * application: the generated code is compiled and a fresh context is started from it, and the runtime
 * hints a native image needs are registered. The generated code reaches package-private classes, so it
 * is loaded with them in a forked class loader.
 */
@CompileWithForkedClassLoader
class RetryAotProcessingTests {

	private static final Map<String, Object> PROPERTIES = Map.of("retry.instances.inventory.max-attempts", "3",
			"retry.instances.inventory.retry-on-result", "emptyStock", "retry.instances.payments.max-attempts", "2",
			"retry.instances.payments.retry-on", "java.util.concurrent.TimeoutException",
			"retry.configs.slow.ignore", "java.lang.InterruptedException",
			"retry.defaults.not-recoverable", "java.util.concurrent.CancellationException");

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, RetryAutoConfiguration.class))
		.withPropertyValues(PROPERTIES.entrySet().stream().map(entry -> entry.getKey() + "=" + entry.getValue())
			.toArray(String[]::new))
		.withUserConfiguration(Beans.class);

	@Test
	void aContextWithDeclaredInstancesIsProcessedAheadOfTimeAndStartsFromTheGeneratedCode() {
		this.runner.prepare(prepared -> {
			TestGenerationContext generation = new TestGenerationContext();
			ClassName initializerName = new ApplicationContextAotGenerator()
				.processAheadOfTime((GenericApplicationContext) prepared.getSourceApplicationContext(), generation);
			generation.writeGeneratedContent();
			TestCompiler.forSystem().with(generation).compile(compiled -> {
				try (GenericApplicationContext context = new GenericApplicationContext()) {
					context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("test", PROPERTIES));
					@SuppressWarnings("unchecked")
					ApplicationContextInitializer<GenericApplicationContext> initializer = compiled
						.getInstance(ApplicationContextInitializer.class, initializerName.toString());
					initializer.initialize(context);
					context.refresh();
					RetryRegistry registry = context.getBean(RetryRegistry.class);
					assertThat(context.getBean("inventoryRetryTemplate")).isSameAs(registry.template("inventory"));
					assertThat(context.getBean("paymentsRetryTemplate", RetryTemplate.class).getConfig().getMaxAttempts())
						.isEqualTo(2);
					assertThat(context.getBean(Inventory.class).stock("SKU-1")).isEqualTo("recovered SKU-1 after 3");
				}
			});
		});
	}

	@Test
	void registersHintsForWhatTheStarterReachesByReflection() {
		this.runner.prepare(prepared -> {
			TestGenerationContext generation = new TestGenerationContext();
			new ApplicationContextAotGenerator()
				.processAheadOfTime((GenericApplicationContext) prepared.getSourceApplicationContext(), generation);
			RuntimeHints hints = generation.getRuntimeHints();
			assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Inventory.class, "fallback")).accepts(hints);
			assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Inventory.class, "stock")).accepts(hints);
			assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Inventory.class, "reserve")).accepts(hints);
			assertThat(RuntimeHintsPredicates.reflection().onType(IllegalStateException.class)).accepts(hints);
			assertThat(RuntimeHintsPredicates.reflection().onType(Order.class)
				.withMemberCategory(MemberCategory.INVOKE_PUBLIC_METHODS)).accepts(hints);
			assertThat(RuntimeHintsPredicates.reflection().onType(TypeReference.of(TimeoutException.class))).accepts(hints);
			assertThat(RuntimeHintsPredicates.reflection().onType(TypeReference.of(InterruptedException.class)))
				.accepts(hints);
			assertThat(RuntimeHintsPredicates.reflection().onType(TypeReference.of(CancellationException.class)))
				.accepts(hints);
			assertThat(RuntimeHintsPredicates.reflection().onType(UnsupportedOperationException.class)).accepts(hints);
			// Attempts use Spring's public AOP API only: no field of ReflectiveMethodInvocation is reached.
			assertThat(RuntimeHintsPredicates.reflection().onFieldAccess(ReflectiveMethodInvocation.class,
					"currentInterceptorIndex")).rejects(hints);
		});
	}

	/** Beans as an application declares them: AOT cannot process beans registered with a supplier. */
	@Configuration(proxyBeanMethods = false)
	static class Beans {

		@Bean
		VirtualTime virtualTime() {
			return new VirtualTime();
		}

		@Bean
		Predicate<Object> emptyStock() {
			return "empty"::equals;
		}

		@Bean
		Inventory inventory() {
			return new Inventory();
		}

	}

	/** An order, whose id a SpEL key reads. */
	public record Order(String id) {
	}

	/** A bean with a retried method and its recovery, proxied by the aspect in the generated context too. */
	static class Inventory {

		private final AtomicInteger calls = new AtomicInteger();

		@Retryable(value = "inventory", retryFor = IllegalStateException.class,
				notRecoverable = UnsupportedOperationException.class)
		public String stock(String sku) {
			throw new IllegalStateException("down " + this.calls.incrementAndGet());
		}

		@Recover
		public String fallback(IllegalStateException failure, String sku) {
			return "recovered " + sku + " after " + this.calls.get();
		}

		@Failback(value = "payments", key = "#order.id")
		public void reserve(Order order) {
		}

	}

}
