package dev.retrykit.spring.boot.aop;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.retrykit.VirtualTime;
import dev.retrykit.annotation.Retryable;
import dev.retrykit.spring.boot.autoconfigure.RetryAutoConfiguration;
import dev.retrykit.spring.boot.autoconfigure.RetryFailureAnalyzer;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionStatus;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.SimpleTransactionStatus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RetryTargetsAndOrderingTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, RetryAutoConfiguration.class))
		.withBean(VirtualTime.class, VirtualTime::new)
		.withBean(Events.class, Events::new);

	@Test
	void aTargetAppliesAnInstanceToBeansMatchedByAPointcutWithoutAnnotations() {
		this.runner.withBean("inventoryApi", InventoryApi.class, InventoryApi::new)
			.withPropertyValues("retry.instances.inventory.max-attempts=4",
					"retry.targets[0].pointcut=bean(inventoryApi) && execution(* fetch(..))",
					"retry.targets[0].instance=inventory")
			.run(context -> {
				InventoryApi api = context.getBean(InventoryApi.class);
				assertThatThrownBy(api::fetch).isInstanceOf(IOException.class);
				assertThat(context.getBean(Events.class).list).hasSize(4);
				assertThatThrownBy(api::other).isInstanceOf(IOException.class);
				assertThat(context.getBean(Events.class).list).hasSize(5);
			});
	}

	@Test
	void anAnnotatedMethodMatchedByATargetIsRetriedOnlyByItsAnnotation() {
		this.runner.withBean("inventoryApi", InventoryApi.class, InventoryApi::new)
			.withPropertyValues("retry.instances.inventory.max-attempts=4", "retry.targets[0].pointcut=bean(inventoryApi)",
					"retry.targets[0].instance=inventory")
			.run(context -> {
				assertThatThrownBy(context.getBean(InventoryApi.class)::annotated).isInstanceOf(IOException.class);
				assertThat(context.getBean(Events.class).list).hasSize(2);
			});
	}

	@Test
	void aMalformedPointcutFailsStartupNamingTheTarget() {
		this.runner.withPropertyValues("retry.targets[0].pointcut=execution(* *(..)", "retry.targets[0].instance=inventory")
			.run(context -> {
				FailureAnalysis analysis = new RetryFailureAnalyzer().analyze(context.getStartupFailure());
				assertThat(analysis.getDescription()).contains("'retry.targets[0].pointcut'", "'execution(* *(..)'",
						"not a valid AspectJ pointcut expression");
			});
	}

	@Test
	void aTargetWithoutAnInstanceFailsStartup() {
		this.runner.withPropertyValues("retry.targets[0].pointcut=bean(x)")
			.run(context -> assertThat(new RetryFailureAnalyzer().analyze(context.getStartupFailure()).getDescription())
				.contains("'retry.targets[0].instance'", "every target needs an instance"));
	}

	@Test
	void byDefaultRetryWrapsTransactionalSoEachAttemptGetsAFreshTransaction() {
		this.runner.withUserConfiguration(TransactionConfiguration.class).run(context -> {
			assertThatThrownBy(context.getBean(TransactionalService.class)::save).isInstanceOf(IOException.class);
			assertThat(context.getBean(Events.class).list).containsExactly("begin", "call", "rollback", "begin", "call",
					"rollback", "begin", "call", "rollback");
		});
	}

	@Test
	void anAspectOrderAfterTheTransactionPutsAllAttemptsInOneTransaction() {
		this.runner.withUserConfiguration(TransactionConfiguration.class)
			.withPropertyValues("retry.aspect-order=" + Integer.MAX_VALUE)
			.run(context -> {
				assertThatThrownBy(context.getBean(TransactionalService.class)::save).isInstanceOf(IOException.class);
				assertThat(context.getBean(Events.class).list).containsExactly("begin", "call", "call", "call", "rollback");
			});
	}

	public static class Events {

		final List<String> list = new CopyOnWriteArrayList<>();

	}

	public static class InventoryApi {

		@Autowired
		Events events;

		public String fetch() throws IOException {
			this.events.list.add("fetch");
			throw new IOException("down");
		}

		public String other() throws IOException {
			this.events.list.add("other");
			throw new IOException("down");
		}

		@Retryable(maxAttempts = 2)
		public String annotated() throws IOException {
			this.events.list.add("annotated");
			throw new IOException("down");
		}

	}

	public static class TransactionalService {

		@Autowired
		Events events;

		@Retryable
		@Transactional(rollbackFor = IOException.class)
		public void save() throws IOException {
			this.events.list.add("call");
			throw new IOException("down");
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableTransactionManagement(order = Integer.MAX_VALUE - 1)
	static class TransactionConfiguration {

		@Bean
		TransactionalService transactionalService() {
			return new TransactionalService();
		}

		@Bean
		PlatformTransactionManager transactionManager(Events events) {
			return new PlatformTransactionManager() {
				@Override
				public TransactionStatus getTransaction(TransactionDefinition definition) {
					events.list.add("begin");
					return new SimpleTransactionStatus();
				}

				@Override
				public void commit(TransactionStatus status) {
					events.list.add("commit");
				}

				@Override
				public void rollback(TransactionStatus status) {
					events.list.add("rollback");
				}
			};
		}

	}

}
