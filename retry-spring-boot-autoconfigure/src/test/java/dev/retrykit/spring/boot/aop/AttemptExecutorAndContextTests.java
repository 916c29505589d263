package dev.retrykit.spring.boot.aop;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.TimeUnit;

import dev.retrykit.VirtualTime;
import dev.retrykit.annotation.Failback;
import dev.retrykit.annotation.Retryable;
import dev.retrykit.spring.boot.autoconfigure.RetryAutoConfiguration;
import io.micrometer.context.ContextRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.TestWatcher;
import org.slf4j.MDC;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Where async retries and failback attempts run (the application's task executor, never the common
 * pool) and what they see of their caller (MDC, any Context Propagation accessor).
 */
class AttemptExecutorAndContextTests {

	/** Prints why a test did not run (the virtual-thread test on Java 17), so that the build log says so. */
	@RegisterExtension
	static final TestWatcher SKIPPED = new TestWatcher() {

		@Override
		public void testDisabled(ExtensionContext context, Optional<String> reason) {
			System.out.println("Skipped " + context.getDisplayName() + " on Java " + Runtime.version().feature()
					+ ": " + reason.orElse("no reason given"));
		}

	};

	private static final ThreadLocal<String> TENANT = new ThreadLocal<>();

	private static final String TENANT_KEY = "retrykit.test.tenant";

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(TaskExecutionAutoConfiguration.class, AopAutoConfiguration.class,
				RetryAutoConfiguration.class))
		.withBean(Remote.class, Remote::new)
		.withBean(Audit.class, Audit::new)
		.withPropertyValues("retry.instances.remote.backoff.type=fixed", "retry.instances.remote.backoff.delay=1ms",
				"retry.instances.audit.backoff.type=fixed", "retry.instances.audit.backoff.delay=1ms");

	@BeforeEach
	void registerAccessor() {
		ContextRegistry.getInstance().registerThreadLocalAccessor(TENANT_KEY, TENANT);
	}

	@AfterEach
	void removeAccessor() {
		ContextRegistry.getInstance().removeThreadLocalAccessor(TENANT_KEY);
		MDC.clear();
		TENANT.remove();
	}

	@Test
	void retriesRunOnTheApplicationTaskExecutorInTheCallersContext() {
		this.runner.run(context -> {
			Remote remote = context.getBean(Remote.class);
			Audit audit = context.getBean(Audit.class);
			CompletableFuture<String> fetched = callAs("r-1", "t-1", remote::fetch);
			callAs("r-2", "t-2", () -> {
				audit.send("e-1");
				return null;
			});
			assertThat(fetched.get(30, TimeUnit.SECONDS)).isEqualTo("ok");
			assertThat(audit.delivered().get(30, TimeUnit.SECONDS)).isEqualTo("e-1");
			assertThat(remote.seen()).hasSize(2);
			assertThat(remote.seen().get(1).thread()).startsWith("task-");
			assertThat(remote.seen()).allSatisfy(seen -> assertThat(seen.context()).isEqualTo("r-1/t-1"));
			assertThat(audit.seen()).hasSize(2);
			assertThat(audit.seen().get(1).thread()).startsWith("task-");
			assertThat(audit.seen()).allSatisfy(seen -> assertThat(seen.context()).isEqualTo("r-2/t-2"));
		});
	}

	@Test
	void withoutBootsTaskExecutorTheApplicationsOnlyExecutorRunsTheRetries() {
		this.runner.withUserConfiguration(IoExecutorConfiguration.class).run(context -> {
			assertThat(context).doesNotHaveBean("applicationTaskExecutor");
			Remote remote = context.getBean(Remote.class);
			assertThat(remote.fetch().get(30, TimeUnit.SECONDS)).isEqualTo("ok");
			assertThat(remote.seen().get(1).thread()).startsWith("io-");
		});
	}

	@Test
	void withoutAnyTaskExecutorRetriesAndFailbackAttemptsRunOnTheStartersOwnThreadsNeverOnTheCommonPool()
			throws InterruptedException {
		List<Thread> attemptThreads = new CopyOnWriteArrayList<>();
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, RetryAutoConfiguration.class))
			.withBean(Remote.class, Remote::new)
			.withBean(Audit.class, Audit::new)
			.withPropertyValues("retry.instances.remote.backoff.type=fixed", "retry.instances.remote.backoff.delay=1ms",
					"retry.instances.audit.backoff.type=fixed", "retry.instances.audit.backoff.delay=1ms")
			.run(context -> {
				assertThat(context).doesNotHaveBean(Executor.class);
				Remote remote = context.getBean(Remote.class);
				Audit audit = context.getBean(Audit.class);
				assertThat(remote.fetch().get(30, TimeUnit.SECONDS)).isEqualTo("ok");
				audit.send("e-1");
				assertThat(audit.delivered().get(30, TimeUnit.SECONDS)).isEqualTo("e-1");
				assertThat(List.of(remote.seen().get(1), audit.seen().get(1))).allSatisfy(seen -> {
					assertThat(seen.thread()).startsWith("retry-").doesNotContain("ForkJoinPool");
					assertThat(seen.commonPool()).isFalse();
				});
				Thread.getAllStackTraces().keySet().stream()
					.filter(thread -> thread.getName().equals(remote.seen().get(1).thread())
							|| thread.getName().equals(audit.seen().get(1).thread()))
					.forEach(attemptThreads::add);
			});
		// The starter owns these threads: closing the context shuts them down.
		assertThat(attemptThreads).isNotEmpty();
		for (Thread thread : attemptThreads) {
			thread.join(Duration.ofSeconds(30).toMillis());
			assertThat(thread.isAlive()).as(thread.getName()).isFalse();
		}
	}

	@Test
	@EnabledForJreRange(min = JRE.JAVA_21, disabledReason = "virtual threads need Java 21 or later; .ci/run runs this test on Java 25 when the machine has it")
	void withVirtualThreadsEnabledRetriesRunOnVirtualThreads() {
		this.runner.withPropertyValues("spring.threads.virtual.enabled=true").run(context -> {
			Remote remote = context.getBean(Remote.class);
			assertThat(remote.fetch().get(30, TimeUnit.SECONDS)).isEqualTo("ok");
			assertThat(remote.seen().get(1).virtual()).isTrue();
		});
	}

	@Test
	void aRetryRunOnTheCallersThreadAfterItMovedOnSeesTheCallersContextAndLeavesTheThreadsOwn() {
		this.runner.withBean(VirtualTime.class, VirtualTime::new).run(context -> {
			Remote remote = context.getBean(Remote.class);
			Audit audit = context.getBean(Audit.class);
			CompletableFuture<String> fetched = callAs("r-1", "t-1", remote::fetch);
			callAs("r-2", "t-2", () -> {
				audit.send("e-1");
				return null;
			});
			callAs("later", "other", () -> {
				context.getBean(VirtualTime.class).advance(Duration.ofSeconds(1));
				assertThat(MDC.get("request")).isEqualTo("later");
				assertThat(TENANT.get()).isEqualTo("other");
				return null;
			});
			assertThat(fetched).isCompletedWithValue("ok");
			assertThat(audit.delivered()).isCompletedWithValue("e-1");
			assertThat(remote.seen()).extracting(Seen::context).containsExactly("r-1/t-1", "r-1/t-1");
			assertThat(audit.seen()).extracting(Seen::context).containsExactly("r-2/t-2", "r-2/t-2");
		});
	}

	private static <T> T callAs(String request, String tenant, Call<T> call) throws Exception {
		MDC.put("request", request);
		TENANT.set(tenant);
		try {
			return call.run();
		}
		finally {
			MDC.remove("request");
			TENANT.remove();
		}
	}

	@FunctionalInterface
	interface Call<T> {

		T run() throws Exception;

	}

	/** What an attempt saw: its thread and its caller's request and tenant. */
	record Seen(String thread, boolean virtual, boolean commonPool, String context) {

		static Seen now() {
			Thread thread = Thread.currentThread();
			boolean commonPool = (thread instanceof ForkJoinWorkerThread worker) && worker.getPool() == ForkJoinPool.commonPool();
			return new Seen(thread.getName(), isVirtual(thread), commonPool, MDC.get("request") + "/" + TENANT.get());
		}

		private static boolean isVirtual(Thread thread) {
			try {
				return (boolean) Thread.class.getMethod("isVirtual").invoke(thread);
			}
			catch (ReflectiveOperationException ex) {
				return false; // before Java 21
			}
		}

	}

	static class Remote {

		private final List<Seen> seen = new CopyOnWriteArrayList<>();

		/** @return the attempts (a method: the fields of the proxy are not the bean's) */
		public List<Seen> seen() {
			return this.seen;
		}

		@Retryable("remote")
		public CompletableFuture<String> fetch() {
			this.seen.add(Seen.now());
			return (this.seen.size() == 1) ? CompletableFuture.failedFuture(new IllegalStateException("down"))
					: CompletableFuture.completedFuture("ok");
		}

	}

	static class Audit {

		private final List<Seen> seen = new CopyOnWriteArrayList<>();

		private final CompletableFuture<String> delivered = new CompletableFuture<>();

		public List<Seen> seen() {
			return this.seen;
		}

		public CompletableFuture<String> delivered() {
			return this.delivered;
		}

		@Failback("audit")
		public void send(String event) {
			this.seen.add(Seen.now());
			if (this.seen.size() == 1) {
				throw new IllegalStateException("down");
			}
			this.delivered.complete(event);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class IoExecutorConfiguration {

		@Bean
		ThreadPoolTaskExecutor ioExecutor() {
			ThreadPoolTaskExecutor executor = new ThreadPoolTaskExecutor();
			executor.setThreadNamePrefix("io-");
			return executor;
		}

	}

}
