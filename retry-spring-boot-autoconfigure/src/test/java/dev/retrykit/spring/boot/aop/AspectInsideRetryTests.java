package dev.retrykit.spring.boot.aop;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.retrykit.VirtualTime;
import dev.retrykit.annotation.Retryable;
import dev.retrykit.spring.boot.autoconfigure.RetryAutoConfiguration;
import org.aspectj.lang.ProceedingJoinPoint;
import org.aspectj.lang.annotation.Around;
import org.aspectj.lang.annotation.Aspect;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An {@code @Aspect}'s around advice inside the retry runs on every attempt and proceeds to the target each
 * time: the join point Spring caches per invocation is never reused from an earlier attempt (which would
 * proceed from that attempt's position and skip the target).
 */
class AspectInsideRetryTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, RetryAutoConfiguration.class))
		.withBean(VirtualTime.class, VirtualTime::new)
		.withBean(Events.class, Events::new)
		.withBean(Inventory.class, Inventory::new)
		.withBean(Timing.class, Timing::new)
		.withPropertyValues("retry.instances.inventory.max-attempts=3", "retry.instances.inventory.backoff.type=none");

	@Test
	void anInnerAroundAdviceWrapsEachAttemptAndReachesTheTargetEachTime() {
		this.runner.run(context -> {
			Inventory inventory = context.getBean(Inventory.class);
			assertThat(inventory.stock("A")).isEqualTo("A: 7");
			assertThat(context.getBean(Events.class).list).containsExactly("around", "stock", "around", "stock", "around",
					"stock");
		});
	}

	public static class Events {

		final List<String> list = new CopyOnWriteArrayList<>();

	}

	public static class Inventory {

		@org.springframework.beans.factory.annotation.Autowired
		Events events;

		private int calls;

		@Retryable("inventory")
		public String stock(String sku) throws IOException {
			this.events.list.add("stock");
			if (++this.calls < 3) {
				throw new IOException("down");
			}
			return sku + ": 7";
		}

	}

	/** Ordered after the retry (the retry's default order is higher precedence), so it sits inside it. */
	@Aspect
	@Order(Ordered.LOWEST_PRECEDENCE)
	public static class Timing {

		@org.springframework.beans.factory.annotation.Autowired
		Events events;

		@Around("execution(* dev.retrykit.spring.boot.aop.AspectInsideRetryTests.Inventory.stock(..))")
		public Object time(ProceedingJoinPoint joinPoint) throws Throwable {
			this.events.list.add("around");
			return joinPoint.proceed();
		}

	}

}
