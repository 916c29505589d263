package dev.retrykit.spring.boot.aop;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicInteger;

import dev.retrykit.ExhaustedRetryException;
import dev.retrykit.VirtualTime;
import dev.retrykit.annotation.Retryable;
import dev.retrykit.spring.boot.autoconfigure.RetryAutoConfiguration;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class StatefulKeyTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, RetryAutoConfiguration.class))
		.withBean(VirtualTime.class, VirtualTime::new)
		.withPropertyValues("retry.instances.orders.max-attempts=2");

	@Test
	void twoStatefulMethodsOfOneInstanceNeverShareACountForTheSameArgument() {
		this.runner.withBean(Orders.class, Orders::new).run(context -> {
			Orders orders = context.getBean(Orders.class);
			assertThatThrownBy(() -> orders.ship("o-1")).isInstanceOf(IOException.class);
			assertThatThrownBy(() -> orders.bill("o-1")).isInstanceOf(IOException.class);
			// ship's own count is 1 of 2: it runs again instead of being reported as exhausted.
			assertThatThrownBy(() -> orders.ship("o-1")).isInstanceOf(IOException.class);
			assertThat(orders.calls()).isEqualTo(3);
			assertThatThrownBy(() -> orders.ship("o-1")).isInstanceOf(ExhaustedRetryException.class);
			assertThat(orders.calls()).isEqualTo(3);
		});
	}

	@Test
	void twoStatefulMethodsWithoutArgumentsNeverShareACount() {
		this.runner.withBean(Orders.class, Orders::new).run(context -> {
			Orders orders = context.getBean(Orders.class);
			assertThatThrownBy(orders::shipAll).isInstanceOf(IOException.class);
			assertThatThrownBy(orders::billAll).isInstanceOf(IOException.class);
			assertThatThrownBy(orders::shipAll).isInstanceOf(IOException.class);
			assertThat(orders.calls()).isEqualTo(3);
		});
	}

	@Test
	void aKeyExpressionReplacesTheDefaultKeySoMethodsMayShareACountOnPurpose() {
		this.runner.withBean(Orders.class, Orders::new).run(context -> {
			Orders orders = context.getBean(Orders.class);
			assertThatThrownBy(() -> orders.keyedShip("o-1")).isInstanceOf(IOException.class);
			assertThatThrownBy(() -> orders.keyedBill("o-1")).isInstanceOf(IOException.class);
			assertThatThrownBy(() -> orders.keyedShip("o-1")).isInstanceOf(ExhaustedRetryException.class);
			assertThat(orders.calls()).isEqualTo(2);
		});
	}

	public static class Orders {

		private final AtomicInteger calls = new AtomicInteger();

		public int calls() {
			return this.calls.get();
		}

		@Retryable(value = "orders", stateful = true)
		public void ship(String orderId) throws IOException {
			this.calls.incrementAndGet();
			throw new IOException("ship " + orderId);
		}

		@Retryable(value = "orders", stateful = true)
		public void bill(String orderId) throws IOException {
			this.calls.incrementAndGet();
			throw new IOException("bill " + orderId);
		}

		@Retryable(value = "orders", stateful = true)
		public void shipAll() throws IOException {
			this.calls.incrementAndGet();
			throw new IOException("ship all");
		}

		@Retryable(value = "orders", stateful = true)
		public void billAll() throws IOException {
			this.calls.incrementAndGet();
			throw new IOException("bill all");
		}

		@Retryable(value = "orders", stateful = true, key = "#p0")
		public void keyedShip(String orderId) throws IOException {
			this.calls.incrementAndGet();
			throw new IOException("ship " + orderId);
		}

		@Retryable(value = "orders", stateful = true, key = "#p0")
		public void keyedBill(String orderId) throws IOException {
			this.calls.incrementAndGet();
			throw new IOException("bill " + orderId);
		}

	}

}
