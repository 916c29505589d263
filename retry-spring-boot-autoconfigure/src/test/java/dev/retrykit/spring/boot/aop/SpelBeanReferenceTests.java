package dev.retrykit.spring.boot.aop;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicInteger;

import dev.retrykit.ExhaustedRetryException;
import dev.retrykit.RetryRegistry;
import dev.retrykit.VirtualTime;
import dev.retrykit.annotation.Failback;
import dev.retrykit.annotation.Retryable;
import dev.retrykit.spring.boot.autoconfigure.RetryAutoConfiguration;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SpelBeanReferenceTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, RetryAutoConfiguration.class))
		.withBean(VirtualTime.class, VirtualTime::new)
		.withBean("checker", Checker.class, Checker::new)
		.withBean("keys", Keys.class, Keys::new)
		.withBean(Client.class, Client::new);

	@Test
	void anExceptionExpressionCanAskABeanWhetherToRetry() {
		this.runner.run(context -> {
			Client client = context.getBean(Client.class);
			assertThatThrownBy(() -> client.call("transient")).isInstanceOf(IOException.class);
			assertThat(client.calls()).isEqualTo(3);
			assertThatThrownBy(() -> client.call("permanent")).isInstanceOf(IOException.class);
			assertThat(client.calls()).isEqualTo(4);
			assertThat(context.getBean(Checker.class).asked.get()).isGreaterThanOrEqualTo(3);
		});
	}

	@Test
	void aStatefulKeyExpressionCanCallABean() {
		this.runner.run(context -> {
			Client client = context.getBean(Client.class);
			assertThatThrownBy(() -> client.stateful("Order-1")).isInstanceOf(IOException.class);
			assertThatThrownBy(() -> client.stateful("ORDER-1")).isInstanceOf(IOException.class);
			// Both calls have the key "order-1" given by the keys bean: the third is exhausted.
			assertThatThrownBy(() -> client.stateful("order-1")).isInstanceOf(ExhaustedRetryException.class);
		});
	}

	@Test
	void aFailbackKeyExpressionCanCallABean() {
		this.runner.run(context -> {
			Client client = context.getBean(Client.class);
			client.notify("Order-1");
			client.notify("ORDER-1");
			assertThat(context.getBean(RetryRegistry.class).failback("notify").pendingCount()).isEqualTo(1);
		});
	}

	public static class Checker {

		final AtomicInteger asked = new AtomicInteger();

		public boolean shouldRetry(Throwable failure) {
			this.asked.incrementAndGet();
			return failure.getMessage().equals("transient");
		}

	}

	public static class Keys {

		public String of(String id) {
			return id.toLowerCase(java.util.Locale.ROOT);
		}

	}

	public static class Client {

		private final AtomicInteger calls = new AtomicInteger();

		public int calls() {
			return this.calls.get();
		}

		@Retryable(exceptionExpression = "@checker.shouldRetry(#root)")
		public String call(String message) throws IOException {
			this.calls.incrementAndGet();
			throw new IOException(message);
		}

		@Retryable(stateful = true, maxAttempts = 2, key = "@keys.of(#p0)")
		public String stateful(String id) throws IOException {
			throw new IOException("down " + id);
		}

		@Failback(value = "notify", key = "@keys.of(#p0)")
		public void notify(String id) {
			throw new IllegalStateException("down " + id);
		}

	}

}
