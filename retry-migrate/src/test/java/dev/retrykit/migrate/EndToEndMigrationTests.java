package dev.retrykit.migrate;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;

import dev.retrykit.VirtualTime;
import dev.retrykit.spring.boot.actuate.endpoint.RetriesDescriptor;
import dev.retrykit.spring.boot.actuate.endpoint.RetriesEndpoint;
import dev.retrykit.spring.boot.autoconfigure.RetryAutoConfiguration;
import dev.retrykit.spring.boot.autoconfigure.endpoint.RetriesEndpointAutoConfiguration;
import io.github.resilience4j.core.ContextAwareScheduledThreadPoolExecutor;
import io.github.resilience4j.spring6.circuitbreaker.configure.CircuitBreakerConfiguration;
import io.github.resilience4j.spring6.circuitbreaker.configure.CircuitBreakerConfigurationProperties;
import io.github.resilience4j.spring6.fallback.configure.FallbackConfiguration;
import io.github.resilience4j.spring6.retry.configure.RetryConfiguration;
import io.github.resilience4j.spring6.retry.configure.RetryConfigurationProperties;
import io.github.resilience4j.spring6.spelresolver.configure.SpelResolverConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.core.env.PropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two small applications written for this test, one on Spring Retry and one on Resilience4j (retried methods,
 * recover and fallback methods, a breaker, a stateful method), each run before and after its recipe on the same
 * scripted failures: the caller sees the same results (values, recovered values, exceptions), the downstream the
 * same number of attempts, the breaker opens at the same call; after the recipe, retrykit's actuator endpoint shows
 * the instances. Backoff runs in virtual time after the migration, in real (millisecond) time before it.
 */
class EndToEndMigrationTests {

	@TempDir
	Path before;

	@TempDir
	Path after;

	/** The instances retrykit's endpoint shows after the migrated run, with their circuit state ("none" without a breaker). */
	private final Map<String, String> circuits = new TreeMap<>();

	@Test
	void theSpringRetryApplicationBehavesTheSameOnRetrykit() throws Exception {
		MiniProject original = MiniProject.load("spring-retry");
		MiniProject migrated = original.migrate("dev.retrykit.migrate.SpringRetryToRetrykit", "spring-retry", "spring-context");
		assertThat(migrated.file("src/main/java/shop/ShopConfiguration.java")).doesNotContain("EnableRetry");
		assertThat(String.join("", migrated.file("src/main/java/shop/Inventory.java"), migrated.file("src/main/java/shop/Payments.java"),
				migrated.file("src/main/java/shop/Jobs.java"))).doesNotContain("org.springframework.retry");

		List<String> springRetry = run(original.compile(this.before), original.applicationYaml(), false, this::springRetryScenario);
		List<String> retrykit = run(migrated.compile(this.after), migrated.applicationYaml(), true, this::springRetryScenario);

		assertThat(retrykit).isEqualTo(springRetry).contains(
				"stock: ok after 3 calls", "stock: recovered b after 3 calls",
				"price: threw IllegalArgumentException after 1 call", "price: threw IOException after 4 calls",
				"pay 1: later o1 after 1 call", "pay 3: later o3 after 0 calls",
				"job: done after 2 calls", "job: recovered b after 3 failures after 3 calls",
				"place 1: threw IOException after 1 call", "place 3: threw ExhaustedRetryException(IOException) after 0 calls");
		assertThat(this.circuits).containsEntry("Payments.pay", "OPEN")
			.containsEntry("Inventory.stock", "none").containsEntry("Prices.price", "none").containsEntry("Orders.place", "none");
	}

	@Test
	void theResilience4jApplicationBehavesTheSameOnRetrykit() throws Exception {
		MiniProject original = MiniProject.load("resilience4j");
		MiniProject migrated = original.migrate("dev.retrykit.migrate.Resilience4jToRetrykit", "resilience4j-annotations", "spring-context");
		assertThat(migrated.applicationYaml()).doesNotContain("resilience4j");

		List<String> resilience4j = run(original.compile(this.before), original.applicationYaml(), false, this::resilience4jScenario);
		List<String> retrykit = run(migrated.compile(this.after), migrated.applicationYaml(), true, this::resilience4jScenario);

		assertThat(retrykit).isEqualTo(resilience4j).contains(
				"stock: ok after 3 calls", "stock: cached b after 3 calls", "stock: threw IllegalStateException after 1 call",
				"price: threw IllegalArgumentException after 1 call", "price: threw IOException after 4 calls",
				"pay 3: paid after 1 call", "pay 5: later o5 after 0 calls",
				"catalog price: listed b after 4 calls", "catalog stock: threw IOException after 3 calls");
		assertThat(this.circuits).containsEntry("payments", "OPEN").containsEntry("inventory", "none").containsEntry("prices", "none");
	}

	private List<String> springRetryScenario(Application shop) throws Exception {
		List<String> transcript = new ArrayList<>();
		shop.step(transcript, "stock", List.of(new IOException("1"), new IOException("2"), "ok"), () -> shop.call("Inventory", "stock", "a"));
		shop.step(transcript, "stock", List.of(new IOException("1"), new IOException("2"), new IOException("3")), () -> shop.call("Inventory", "stock", "b"));
		shop.step(transcript, "price", List.of(new IllegalArgumentException("bad sku")), () -> shop.call("Prices", "price", "a"));
		shop.step(transcript, "price", List.of(new IOException("1"), new IOException("2"), new IOException("3"), new IOException("4")),
				() -> shop.call("Prices", "price", "b"));
		shop.script.plan("pay", List.of(new IOException("1"), new IOException("2"), "paid"));
		for (int i = 1; i <= 3; i++) {
			String order = "o" + i;
			shop.step(transcript, "pay " + i, "pay", () -> shop.call("Payments", "pay", order));
		}
		shop.step(transcript, "job", List.of(new IOException("1"), "done"), () -> shop.call("Jobs", "run", "a"));
		shop.step(transcript, "job", List.of(new IOException("1"), new IOException("2"), new IOException("3")),
				() -> shop.call("Jobs", "run", "b"));
		shop.script.plan("place", List.of(new IOException("1"), new IOException("2"), "placed"));
		for (int i = 1; i <= 3; i++) {
			shop.step(transcript, "place " + i, "place", () -> shop.call("Orders", "place", "order-1"));
		}
		return transcript;
	}

	private List<String> resilience4jScenario(Application shop) throws Exception {
		List<String> transcript = new ArrayList<>();
		shop.step(transcript, "stock", List.of(new IOException("1"), new IOException("2"), "ok"), () -> shop.call("Inventory", "stock", "a"));
		shop.step(transcript, "stock", List.of(new IOException("1"), new IOException("2"), new IOException("3")), () -> shop.call("Inventory", "stock", "b"));
		shop.step(transcript, "stock", List.of(new IllegalStateException("not retried")), () -> shop.call("Inventory", "stock", "c"));
		shop.step(transcript, "price", List.of(new IllegalArgumentException("bad sku")), () -> shop.call("Prices", "price", "a"));
		shop.step(transcript, "price", List.of(new IOException("1"), new IOException("2"), new IOException("3"), new IOException("4")),
				() -> shop.call("Prices", "price", "b"));
		// One class, a method with a fallback and one without: the second keeps no recovery.
		shop.step(transcript, "catalog price", List.of(new IOException("1"), new IOException("2"), new IOException("3"),
				new IOException("4")), () -> shop.call("Catalog", "price", "b"));
		shop.step(transcript, "catalog stock", List.of(new IOException("1"), new IOException("2"), new IOException("3")),
				() -> shop.call("Catalog", "stock", "b"));
		shop.script.plan("pay", List.of(new IOException("1"), new IOException("2"), "paid", new IOException("3"), "paid again"));
		for (int i = 1; i <= 5; i++) {
			String order = "o" + i;
			shop.step(transcript, "pay " + i, "pay", () -> shop.call("Payments", "pay", order));
		}
		return transcript;
	}

	/** Starts the application (before: on its library; after: on retrykit) and runs the scenario in it. */
	private List<String> run(ClassLoader classes, String yaml, boolean retrykit, Scenario scenario) throws Exception {
		Class<?> shopConfiguration = classes.loadClass("shop.ShopConfiguration");
		Script script = new Script();
		ApplicationContextRunner runner = new ApplicationContextRunner().withClassLoader(classes)
			.withInitializer((context) -> addYaml(context, yaml))
			.withBean(Script.class, () -> script)
			.withUserConfiguration(shopConfiguration);
		runner = retrykit
				? runner.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, RetryAutoConfiguration.class,
						RetriesEndpointAutoConfiguration.class))
					.withBean(VirtualTime.class, VirtualTime::new)
					.withPropertyValues("management.endpoints.web.exposure.include=retries")
				: runner.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class))
					.withUserConfiguration(Resilience4jSpring.class);
		List<String> transcript = new ArrayList<>();
		runner.run((context) -> {
			assertThat(context).hasNotFailed();
			transcript.addAll(scenario.run(new Application(context, classes, script)));
			if (retrykit) {
				RetriesDescriptor retries = context.getBean(RetriesEndpoint.class).retries();
				retries.instances().forEach((name, instance) -> this.circuits.put(name,
						(instance.circuit() != null) ? instance.circuit().state() : "none"));
			}
		});
		return transcript;
	}

	private static void addYaml(ConfigurableApplicationContext context, String yaml) {
		if (yaml.isBlank()) {
			return;
		}
		try {
			List<PropertySource<?>> sources = new YamlPropertySourceLoader().load("application.yml",
					new ByteArrayResource(yaml.getBytes(StandardCharsets.UTF_8)));
			sources.forEach((source) -> context.getEnvironment().getPropertySources().addFirst(source));
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

	@FunctionalInterface
	interface Scenario {

		List<String> run(Application shop) throws Exception;

	}

	/** The running application as the scenario drives it. */
	static final class Application {

		private final AssertableApplicationContext context;

		private final ClassLoader classes;

		final Script script;

		Application(AssertableApplicationContext context, ClassLoader classes, Script script) {
			this.context = context;
			this.classes = classes;
			this.script = script;
		}

		String call(String bean, String method, String argument) throws Exception {
			Object target = this.context.getBean(this.classes.loadClass("shop." + bean));
			try {
				return (String) target.getClass().getMethod(method, String.class).invoke(target, argument);
			}
			catch (java.lang.reflect.InvocationTargetException ex) {
				throw (ex.getCause() instanceof Exception cause) ? cause : ex;
			}
		}

		void step(List<String> transcript, String operation, List<Object> outcomes, Callable<String> call) {
			this.script.plan(operation, outcomes);
			step(transcript, operation, operation, call);
		}

		void step(List<String> transcript, String label, String operation, Callable<String> call) {
			int before = this.script.calls(operation);
			String outcome;
			try {
				outcome = call.call();
			}
			catch (Exception ex) {
				outcome = "threw " + ex.getClass().getSimpleName()
						+ ((ex.getCause() != null) ? "(" + ex.getCause().getClass().getSimpleName() + ")" : "");
			}
			int calls = this.script.calls(operation) - before;
			transcript.add(label + ": " + outcome + " after " + calls + ((calls == 1) ? " call" : " calls"));
		}

	}

	/** Resilience4j's Spring configuration as its Boot starter sets it up, bound from the application's YAML. */
	@Configuration(proxyBeanMethods = false)
	@Import({ RetryConfiguration.class, CircuitBreakerConfiguration.class, FallbackConfiguration.class,
			SpelResolverConfiguration.class })
	static class Resilience4jSpring {

		@Bean
		RetryConfigurationProperties retryConfigurationProperties(Environment environment) {
			return Binder.get(environment).bindOrCreate("resilience4j.retry", Bindable.of(RetryConfigurationProperties.class));
		}

		@Bean
		CircuitBreakerConfigurationProperties circuitBreakerConfigurationProperties(Environment environment) {
			return Binder.get(environment).bindOrCreate("resilience4j.circuitbreaker",
					Bindable.of(CircuitBreakerConfigurationProperties.class));
		}

		@Bean(destroyMethod = "shutdown")
		ContextAwareScheduledThreadPoolExecutor resilience4jScheduler() {
			return ContextAwareScheduledThreadPoolExecutor.newScheduledThreadPool().corePoolSize(1).build();
		}

	}

}
