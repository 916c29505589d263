package dev.retrykit.spring.boot.aop;

import java.io.IOException;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

import dev.retrykit.ExhaustedRetryException;
import dev.retrykit.InMemoryRetryContextCache;
import dev.retrykit.context.RetryContext;
import dev.retrykit.RetryTemplateCustomizer;
import dev.retrykit.VirtualTime;
import dev.retrykit.annotation.Retryable;
import dev.retrykit.spi.RetryContextCache;
import dev.retrykit.spi.RetryContextCacheEntry;
import dev.retrykit.spring.boot.autoconfigure.RetryAutoConfiguration;
import dev.retrykit.spring.boot.autoconfigure.RetryFailureAnalyzer;
import dev.retrykit.spring.boot.aop.SharedKeyArguments.Verdict;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Default stateful keys as a cluster shares them, by {@code toString()}: unambiguous, and checked at startup for
 * arguments whose text could never match on another replica.
 */
@ExtendWith(OutputCaptureExtension.class)
class SharedStatefulKeyTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, RetryAutoConfiguration.class))
		.withBean(VirtualTime.class, VirtualTime::new)
		.withPropertyValues("retry.instances.orders.max-attempts=2");

	@Test
	void argumentsWhoseTextsJoinAlikeNeverShareACountInACacheKeyedByText() {
		this.runner.withBean(Orders.class, Orders::new)
			.withBean(RetryTemplateCustomizer.class,
					() -> (name, builder) -> builder.contextCache(new TextKeyedCache(new InMemoryRetryContextCache())))
			.run(context -> {
				Orders orders = context.getBean(Orders.class);
				assertThatThrownBy(() -> orders.pair("a, b", "c")).isInstanceOf(IOException.class);
				// Other arguments, with their own count: two attempts before they are exhausted.
				assertThatThrownBy(() -> orders.pair("a", "b, c")).isInstanceOf(IOException.class);
				assertThatThrownBy(() -> orders.pair("a", "b, c")).isInstanceOf(IOException.class);
				assertThatThrownBy(() -> orders.pair("a", "b, c")).isInstanceOf(ExhaustedRetryException.class);
				assertThatThrownBy(() -> orders.pair("a\", \"b", "c")).isInstanceOf(IOException.class);
				assertThatThrownBy(() -> orders.pair("a\", \"b", "c")).isInstanceOf(IOException.class);
				// ("a, b", "c") still has its second attempt.
				assertThatThrownBy(() -> orders.pair("a, b", "c")).isInstanceOf(IOException.class);
				assertThat(orders.calls()).isEqualTo(6);
			});
	}

	@Test
	void theDefaultKeyReadsAsTheMethodWithItsQuotedArguments() throws Exception {
		DefaultMethodKey key = new DefaultMethodKey("void Orders.pair(String,String)",
				new Object[] { "say \"hi\"", null });
		assertThat(key).hasToString("void Orders.pair(String,String) [\"say \\\"hi\\\"\", null]");
		assertThat(new DefaultMethodKey("m(int[])", new Object[] { new int[] { 1, 2 } }))
			.isEqualTo(new DefaultMethodKey("m(int[])", new Object[] { new int[] { 1, 2 } }))
			.hasToString("m(int[]) [\"[1, 2]\"]");
	}

	@Test
	void withTheClusterEnabledAStatefulDefaultKeyOverAnIdentityToStringFailsStartupNamingMethodAndParameter() {
		this.runner.withBean(Payments.class, Payments::new).withPropertyValues("retry.cluster.enabled=true")
			.run(context -> {
				assertThat(context).hasFailed();
				FailureAnalysis analysis = new RetryFailureAnalyzer().analyze(context.getStartupFailure());
				assertThat(analysis.getDescription()).contains("Payments.charge(String, Card)", "parameter 1",
						Card.class.getName(), "Object.toString()");
				assertThat(analysis.getAction()).contains("key = \"#p1.id\"", "override toString()");
			});
	}

	@Test
	void withoutTheClusterTheSameMethodStarts() {
		this.runner.withBean(Payments.class, Payments::new).run(context -> assertThat(context).hasNotFailed());
	}

	@Test
	void withTheClusterEnabledAKeyExpressionOrValueArgumentsStart(CapturedOutput output) {
		this.runner.withBean(Orders.class, Orders::new).withBean(KeyedPayments.class, KeyedPayments::new)
			.withPropertyValues("retry.cluster.enabled=true")
			.run(context -> assertThat(context).hasNotFailed());
		assertThat(output).doesNotContain("uses the default key");
	}

	@Test
	void withTheClusterEnabledAnArgumentWhoseClassDecidesIsLoggedNamingMethodAndParameter(CapturedOutput output) {
		this.runner.withBean(Loose.class, Loose::new).withPropertyValues("retry.cluster.enabled=true")
			.run(context -> assertThat(context).hasNotFailed());
		assertThat(output).contains("Loose.handle(Object)", "parameter 0 is declared as java.lang.Object");
	}

	@Test
	void tellsValueTypesFromIdentityTypes() {
		for (Class<?> value : List.of(String.class, Integer.class, int.class, LocalDate.class, UUID.class, List.class,
				Map.class, CharSequence.class, Number.class, Amount.class, Kind.class, int[].class, String[].class)) {
			assertThat(SharedKeyArguments.verdict(value)).as(value.getName()).isEqualTo(Verdict.VALUE);
		}
		assertThat(SharedKeyArguments.verdict(Card.class)).isEqualTo(Verdict.IDENTITY);
		assertThat(SharedKeyArguments.verdict(Card[].class)).isEqualTo(Verdict.IDENTITY);
		assertThat(SharedKeyArguments.verdict(Object.class)).isEqualTo(Verdict.UNKNOWN);
		assertThat(SharedKeyArguments.verdict(Payment.class)).isEqualTo(Verdict.UNKNOWN);
	}

	public static class Orders {

		private final AtomicInteger calls = new AtomicInteger();

		public int calls() {
			return this.calls.get();
		}

		@Retryable(value = "orders", stateful = true)
		public void pair(String first, String second) throws IOException {
			this.calls.incrementAndGet();
			throw new IOException(first + second);
		}

		@Retryable(value = "orders", stateful = true)
		public void values(long id, LocalDate day, Amount amount, Kind kind, List<String> tags) {
		}

	}

	public static class Card {

		String id = "c-1";

	}

	public record Amount(long cents) {
	}

	public enum Kind {
		CARD
	}

	public interface Payment {
	}

	public static class Payments {

		@Retryable(value = "orders", stateful = true)
		public void charge(String orderId, Card card) {
		}

	}

	public static class KeyedPayments {

		@Retryable(value = "orders", stateful = true, key = "#p1.id")
		public void charge(String orderId, Card card) {
		}

	}

	public static class Loose {

		@Retryable(value = "orders", stateful = true)
		public void handle(Object message) {
		}

	}

	/** Keys entries by their text, as a cache shared by a cluster does. */
	static final class TextKeyedCache implements RetryContextCache {

		private final InMemoryRetryContextCache delegate;

		TextKeyedCache(InMemoryRetryContextCache delegate) {
			this.delegate = delegate;
		}

		@Override
		public @Nullable RetryContext get(Object key) {
			return this.delegate.get(String.valueOf(key));
		}

		@Override
		public void put(Object key, RetryContext context) {
			this.delegate.put(String.valueOf(key), context);
		}

		@Override
		public @Nullable RetryContext update(Object key, UnaryOperator<@Nullable RetryContext> update) {
			return this.delegate.update(String.valueOf(key), update);
		}

		@Override
		public void remove(Object key) {
			this.delegate.remove(String.valueOf(key));
		}

		@Override
		public int size() {
			return this.delegate.size();
		}

		@Override
		public int capacity() {
			return this.delegate.capacity();
		}

		@Override
		public long evictions() {
			return this.delegate.evictions();
		}

		@Override
		public void clear() {
			this.delegate.clear();
		}

		@Override
		public List<RetryContextCacheEntry> entries(int limit) {
			return this.delegate.entries(limit);
		}

	}

}
