package dev.retrykit.spring.boot.aop;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import dev.retrykit.context.RetryContext;
import dev.retrykit.RetryRegistry;
import dev.retrykit.RetryMetrics;
import dev.retrykit.RetryTemplate;
import dev.retrykit.VirtualTime;
import dev.retrykit.annotation.Backoff;
import dev.retrykit.annotation.Retryable;
import dev.retrykit.spring.boot.autoconfigure.RetryAutoConfiguration;
import org.junit.jupiter.api.Test;

import org.springframework.aop.framework.Advised;
import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RetryableAspectTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, RetryAutoConfiguration.class))
		.withBean(VirtualTime.class, VirtualTime::new)
		.withBean(Calls.class, Calls::new)
		.withBean(Inventory.class, () -> new Inventory())
		.withBean(WholeClass.class, WholeClass::new);

	@Test
	void retriesAFailingMethodUntilItSucceedsWithVirtualBackoff() {
		this.runner.run(context -> {
			Inventory inventory = context.getBean(Inventory.class);
			context.getBean(Calls.class).failuresLeft.set(2);
			assertThat(inventory.fetch("sku")).isEqualTo("stock of sku");
			assertThat(context.getBean(Calls.class).calls).hasValue(3);
			assertThat(context.getBean(VirtualTime.class).sleeps()).containsExactly(Duration.ofMillis(100),
					Duration.ofMillis(200));
		});
	}

	@Test
	void anExhaustedCallRethrowsTheLastExceptionUnchanged() {
		this.runner.run(context -> {
			Inventory inventory = context.getBean(Inventory.class);
			context.getBean(Calls.class).failuresLeft.set(10);
			assertThatThrownBy(() -> inventory.fetch("sku")).isInstanceOf(IOException.class).hasMessage("failure 3")
				.hasNoCause();
		});
	}

	@Test
	void theDefaultInstanceIsNamedAfterTheClassAndMethod() {
		this.runner.run(context -> {
			Inventory inventory = context.getBean(Inventory.class);
			inventory.fetch("sku");
			assertThat(context.getBean(RetryRegistry.class).names()).contains("Inventory.fetch");
			assertThat(context.getBean(Calls.class).contextNames).containsExactly("Inventory.fetch");
		});
	}

	@Test
	void aNamedInstanceTakesItsSettingsFromTheProperties() {
		this.runner.withPropertyValues("retry.instances.inventory.max-attempts=5", "retry.instances.inventory.backoff.type=none")
			.run(context -> {
				Inventory inventory = context.getBean(Inventory.class);
				context.getBean(Calls.class).failuresLeft.set(10);
				assertThatThrownBy(() -> inventory.named()).isInstanceOf(IOException.class);
				assertThat(context.getBean(Calls.class).calls).hasValue(5);
				assertThat(context.getBean(VirtualTime.class).sleeps()).isEmpty();
			});
	}

	@Test
	void retryContextCurrentWorksInsideTheMethod() {
		this.runner.run(context -> {
			Inventory inventory = context.getBean(Inventory.class);
			context.getBean(Calls.class).failuresLeft.set(2);
			inventory.fetch("sku");
			assertThat(context.getBean(Calls.class).retryCounts).containsExactly(0, 1, 2);
		});
	}

	@Test
	void inlineAttributesOverrideTheInstanceForThatMethodOnly() {
		this.runner.withPropertyValues("retry.instances.inventory.max-attempts=5").run(context -> {
			Inventory inventory = context.getBean(Inventory.class);
			context.getBean(Calls.class).failuresLeft.set(10);
			assertThatThrownBy(() -> inventory.overridden()).isInstanceOf(IOException.class);
			assertThat(context.getBean(Calls.class).calls).hasValue(2);
			assertThat(context.getBean(VirtualTime.class).sleeps()).containsExactly(Duration.ofMillis(700));
			context.getBean(Calls.class).calls.set(0);
			assertThatThrownBy(() -> inventory.named()).isInstanceOf(IOException.class);
			assertThat(context.getBean(Calls.class).calls).hasValue(5);
			// Both methods are the same instance to an operator: the override's calls count there too.
			RetryMetrics metrics = context.getBean(RetryRegistry.class).template("inventory").getMetrics();
			assertThat(metrics.getFailedCallsWithRetry()).isEqualTo(2);
			assertThat(metrics.getAttempts()).isEqualTo(7);
		});
	}

	@Test
	void retryForAndNoRetryForChooseTheRetriedFailures() {
		this.runner.run(context -> {
			Inventory inventory = context.getBean(Inventory.class);
			assertThatThrownBy(() -> inventory.throwing(new IllegalStateException("x"))).isInstanceOf(IllegalStateException.class);
			assertThat(context.getBean(Calls.class).calls).hasValue(1);
			context.getBean(Calls.class).calls.set(0);
			assertThatThrownBy(() -> inventory.throwing(new IOException("x"))).isInstanceOf(IOException.class);
			assertThat(context.getBean(Calls.class).calls).hasValue(3);
			context.getBean(Calls.class).calls.set(0);
			assertThatThrownBy(() -> inventory.throwing(new java.io.FileNotFoundException("x")))
				.isInstanceOf(java.io.FileNotFoundException.class);
			assertThat(context.getBean(Calls.class).calls).hasValue(1);
		});
	}

	@Test
	void anExceptionExpressionMustHoldForAFailureToBeRetried() {
		this.runner.run(context -> {
			Inventory inventory = context.getBean(Inventory.class);
			assertThatThrownBy(() -> inventory.expression("permanent")).isInstanceOf(IllegalStateException.class);
			assertThat(context.getBean(Calls.class).calls).hasValue(1);
			context.getBean(Calls.class).calls.set(0);
			assertThatThrownBy(() -> inventory.expression("timeout")).isInstanceOf(IllegalStateException.class);
			assertThat(context.getBean(Calls.class).calls).hasValue(3);
			context.getBean(Calls.class).calls.set(0);
			assertThatThrownBy(() -> inventory.templateExpression("timeout")).isInstanceOf(IllegalStateException.class);
			assertThat(context.getBean(Calls.class).calls).hasValue(3);
		});
	}

	@Test
	void aTypeLevelAnnotationRetriesEveryPublicMethodUnderItsOwnName() {
		this.runner.run(context -> {
			WholeClass bean = context.getBean(WholeClass.class);
			assertThatThrownBy(bean::first).isInstanceOf(IllegalStateException.class);
			assertThat(context.getBean(Calls.class).calls).hasValue(3);
			assertThat(context.getBean(RetryRegistry.class).names()).contains("WholeClass.first");
		});
	}

	@Test
	void worksWithoutAspectJOnTheClasspath() {
		this.runner.withClassLoader(new FilteredClassLoader("org.aspectj")).run(context -> {
			Inventory inventory = context.getBean(Inventory.class);
			context.getBean(Calls.class).failuresLeft.set(1);
			assertThat(inventory.fetch("sku")).isEqualTo("stock of sku");
			assertThat(context.getBean(Calls.class).calls).hasValue(2);
		});
	}

	@Test
	void retriesThroughAnInterfaceProxy() {
		this.runner.withPropertyValues("spring.aop.proxy-target-class=false")
			.withBean(Greeter.class, FlakyGreeter::new)
			.run(context -> {
				Greeter greeter = context.getBean(Greeter.class);
				assertThat(AopUtils.isJdkDynamicProxy(greeter)).isTrue();
				context.getBean(Calls.class).failuresLeft.set(2);
				assertThat(greeter.greet("you")).isEqualTo("hello you");
				assertThat(context.getBean(Calls.class).calls).hasValue(3);
			});
	}

	@Test
	void theAdvisorOrderComesFromAspectOrder() {
		this.runner.run(context -> assertThat(context.getBean(RetryAdvisor.class).getOrder())
			.isEqualTo(Integer.MAX_VALUE - 10));
		this.runner.withPropertyValues("retry.aspect-order=42")
			.run(context -> assertThat(context.getBean(RetryAdvisor.class).getOrder()).isEqualTo(42));
	}

	@Test
	void nothingIsProxiedWhenRetryIsDisabled() {
		this.runner.withPropertyValues("retry.enabled=false").run(context -> {
			assertThat(AopUtils.isAopProxy(context.getBean(Inventory.class))).isFalse();
			assertThat(context).doesNotHaveBean(RetryAdvisor.class);
		});
	}

	@Test
	void theRetryAdvisorIsTheOnlyAdviceOnAnAnnotatedBean() {
		this.runner.run(context -> assertThat(((Advised) context.getBean(Inventory.class)).getAdvisors())
			.hasOnlyElementsOfType(RetryAdvisor.class));
	}

	/** What the beans record; a separate bean because a class proxy's own fields are not the target's. */
	public static class Calls {

		final AtomicInteger calls = new AtomicInteger();

		final AtomicInteger failuresLeft = new AtomicInteger();

		final List<Integer> retryCounts = new ArrayList<>();

		final List<String> contextNames = new ArrayList<>();

	}

	public static class Inventory {

		@org.springframework.beans.factory.annotation.Autowired
		Calls state;

		@Retryable
		public String fetch(String sku) throws IOException {
			RetryContext context = RetryTemplate.currentContext();
			this.state.retryCounts.add(context.getRetryCount());
			this.state.contextNames.add(context.getName());
			int call = this.state.calls.incrementAndGet();
			if (this.state.failuresLeft.getAndDecrement() > 0) {
				throw new IOException("failure " + call);
			}
			return "stock of " + sku;
		}

		@Retryable("inventory")
		public String named() throws IOException {
			this.state.calls.incrementAndGet();
			throw new IOException("down");
		}

		@Retryable(value = "inventory", maxAttempts = 2, backoff = @Backoff(delay = 700, type = "fixed"))
		public String overridden() throws IOException {
			this.state.calls.incrementAndGet();
			throw new IOException("down");
		}

		@Retryable(retryFor = IOException.class, noRetryFor = java.io.FileNotFoundException.class)
		public void throwing(Exception failure) throws Exception {
			this.state.calls.incrementAndGet();
			throw failure;
		}

		@Retryable(exceptionExpression = "message.contains('timeout')")
		public void expression(String message) {
			this.state.calls.incrementAndGet();
			throw new IllegalStateException(message);
		}

		@Retryable(exceptionExpression = "#{message.contains('timeout')}")
		public void templateExpression(String message) {
			this.state.calls.incrementAndGet();
			throw new IllegalStateException(message);
		}

	}

	public interface Greeter {

		String greet(String name);

	}

	public static class FlakyGreeter implements Greeter {

		@org.springframework.beans.factory.annotation.Autowired
		Calls state;

		@Override
		@Retryable
		public String greet(String name) {
			this.state.calls.incrementAndGet();
			if (this.state.failuresLeft.getAndDecrement() > 0) {
				throw new IllegalStateException("down");
			}
			return "hello " + name;
		}

	}

	@Retryable
	public static class WholeClass {

		@org.springframework.beans.factory.annotation.Autowired
		Calls state;

		public void first() {
			this.state.calls.incrementAndGet();
			throw new IllegalStateException("down");
		}

	}

}
