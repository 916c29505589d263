package dev.retrykit.spring.boot.aop;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import dev.retrykit.context.RetryContext;
import dev.retrykit.RetryListener;
import dev.retrykit.VirtualTime;
import dev.retrykit.annotation.Retryable;
import dev.retrykit.spring.boot.autoconfigure.RetryAutoConfiguration;
import dev.retrykit.spring.boot.autoconfigure.RetryFailureAnalyzer;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MethodListenersTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, RetryAutoConfiguration.class))
		.withBean(VirtualTime.class, VirtualTime::new)
		.withBean("metricsListener", Recording.class, () -> new Recording("metrics"))
		.withBean("auditListener", Recording.class, () -> new Recording("audit"));

	@Test
	void aListenerSeesTheInterceptedMethodAndItsArguments() {
		this.runner.withBean(Client.class, Client::new).run(context -> {
			assertThatThrownBy(() -> context.getBean(Client.class).everyone("sku-1", 2)).isInstanceOf(IOException.class);
			Recording metrics = context.getBean("metricsListener", Recording.class);
			assertThat(metrics.events).containsExactly("open everyone[sku-1, 2]", "error everyone[sku-1, 2]",
					"error everyone[sku-1, 2]", "error everyone[sku-1, 2]", "close everyone[sku-1, 2]");
		});
	}

	@Test
	void aMethodThatNamesListenersIsHeardOnlyByThem() {
		this.runner.withBean(Client.class, Client::new).run(context -> {
			assertThat(context.getBean(Client.class).audited("a")).isEqualTo("ok a");
			assertThat(context.getBean("auditListener", Recording.class).events).containsExactly("open audited[a]",
					"success audited[a]", "close audited[a]");
			assertThat(context.getBean("metricsListener", Recording.class).events).isEmpty();
		});
	}

	@Test
	void anEmptyListenerNameLeavesOutEveryListener() {
		this.runner.withBean(Client.class, Client::new).run(context -> {
			assertThat(context.getBean(Client.class).unheard("a")).isEqualTo("quiet a");
			assertThat(context.getBean("auditListener", Recording.class).events).isEmpty();
			assertThat(context.getBean("metricsListener", Recording.class).events).isEmpty();
		});
	}

	@Test
	void anAsyncMethodsCallsAreHeardByItsListenersWithTheInvocation() {
		this.runner.withBean(Client.class, Client::new).run(context -> {
			CompletableFuture<String> result = context.getBean(Client.class).later("x");
			context.getBean(VirtualTime.class).advance(Duration.ofSeconds(1));
			assertThat(result).isCompletedWithValue("later x");
			assertThat(context.getBean("auditListener", Recording.class).events).containsExactly("open later[x]",
					"success later[x]", "close later[x]");
			assertThat(context.getBean("metricsListener", Recording.class).events).isEmpty();
		});
	}

	@Test
	void aCallThroughATemplateIsHeardByTheGlobalListenersWithoutAnInvocation() {
		this.runner.withPropertyValues("retry.instances.plain.max-attempts=1").run(context -> {
			context.getBean("plainRetryTemplate", dev.retrykit.RetryTemplate.class).execute(retryContext -> "x");
			assertThat(context.getBean("metricsListener", Recording.class).events).containsExactly("open -",
					"success -", "close -");
		});
	}

	@Test
	void listenerBeansHearEveryAttemptOfTheMethodsTheyListenTo() {
		this.runner.withBean("attemptListener", AttemptRecording.class, AttemptRecording::new)
			.withBean(Client.class, Client::new)
			.run(context -> {
				Client client = context.getBean(Client.class);
				assertThatThrownBy(() -> client.everyone("sku-1", 2)).isInstanceOf(IOException.class);
				assertThat(client.audited("a")).isEqualTo("ok a");
				CompletableFuture<String> later = client.later("x");
				context.getBean(VirtualTime.class).advance(Duration.ofSeconds(1));
				assertThat(later).isCompletedWithValue("later x");
				// audited and later name auditListener only; every global listener hears everyone's attempts.
				assertThat(context.getBean("attemptListener", AttemptRecording.class).events).containsExactly(
						"before attempt 1 of everyone", "returned everyone", "error everyone",
						"before attempt 2 of everyone", "returned everyone", "error everyone",
						"before attempt 3 of everyone", "returned everyone", "error everyone");
				assertThat(context.getBean("auditListener", Recording.class).attempts)
					.containsExactly("everyone 1", "everyone 2", "everyone 3", "audited 1", "later 1");
			});
	}

	@Test
	void anUnknownListenerNameFailsStartupNamingTheMethodAndTheName() {
		this.runner.withBean(Misnamed.class, Misnamed::new).run(context -> {
			FailureAnalysis analysis = new RetryFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(analysis.getDescription()).contains("Misnamed.call(String)", "'auditListner'");
			assertThat(analysis.getAction()).contains("auditListener", "metricsListener");
		});
	}

	@Test
	void aThrowingListenerNeitherChangesTheOutcomeNorKeepsTheOthersFromBeingTold() {
		this.runner.withBean("brokenListener", Broken.class, Broken::new).withBean(Fragile.class, Fragile::new).run(context -> {
			assertThat(context.getBean(Fragile.class).both("a")).isEqualTo("both a");
			assertThat(context.getBean("auditListener", Recording.class).events).containsExactly("open both[a]",
					"success both[a]", "close both[a]");
			assertThat(context.getBean(dev.retrykit.RetryRegistry.class).template("Fragile.both").getMetrics()
				.getListenerFailures()).isEqualTo(3);
		});
	}

	@Test
	void everyThrowingListenerIsCountedAndLoggedOnceNamingIt() {
		// The log is the behaviour under test: captured here, kept off the console.
		Logger logger = Logger.getLogger("dev.retrykit.RetryListener");
		List<String> logged = new CopyOnWriteArrayList<>();
		Handler capture = new Handler() {
			@Override
			public void publish(LogRecord log) {
				logged.add(log.getMessage());
			}

			@Override
			public void flush() {
			}

			@Override
			public void close() {
			}
		};
		logger.setUseParentHandlers(false);
		logger.addHandler(capture);
		try {
			this.runner.withBean("brokenListener", Broken.class, Broken::new)
				.withBean("alsoBrokenListener", AlsoBroken.class, AlsoBroken::new)
				.withBean(VeryFragile.class, VeryFragile::new)
				.run(context -> {
					assertThat(context.getBean(VeryFragile.class).allBroken("a")).isEqualTo("all broken a");
					assertThat(context.getBean("auditListener", Recording.class).events).containsExactly(
							"open allBroken[a]", "success allBroken[a]", "close allBroken[a]");
					// open, onSuccess and close of each of the two.
					assertThat(context.getBean(dev.retrykit.RetryRegistry.class).template("VeryFragile.allBroken")
						.getMetrics()
						.getListenerFailures()).isEqualTo(6);
				});
		}
		finally {
			logger.removeHandler(capture);
			logger.setUseParentHandlers(true);
		}
		assertThat(logged).hasSize(6);
		for (String callback : List.of("open", "onSuccess", "close")) {
			assertThat(logged).filteredOn(line -> line.startsWith("Retry listener broken." + callback + " threw"))
				.hasSize(1);
			assertThat(logged).filteredOn(line -> line.startsWith("Retry listener also broken." + callback + " threw"))
				.hasSize(1);
		}
	}

	@Test
	void concurrentCallsOfMethodsWithDifferentListenersAreEachHeardByTheirOwn() throws Exception {
		this.runner.withBean(Client.class, Client::new).run(context -> {
			Client client = context.getBean(Client.class);
			int threads = 16;
			int calls = 200;
			java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
			java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(threads);
			try {
				List<java.util.concurrent.Future<?>> done = new java.util.ArrayList<>();
				for (int t = 0; t < threads; t++) {
					int thread = t;
					done.add(pool.submit(() -> {
						start.await();
						for (int i = 0; i < calls; i++) {
							String id = thread + "-" + i;
							if ((thread + i) % 2 == 0) {
								client.audited(id);
							}
							else {
								client.unheard(id);
								client.plain(id);
							}
						}
						return null;
					}));
				}
				for (java.util.concurrent.Future<?> future : done) {
					future.get(30, java.util.concurrent.TimeUnit.SECONDS);
				}
			}
			finally {
				pool.shutdownNow();
			}
			List<String> audit = context.getBean("auditListener", Recording.class).events;
			List<String> metrics = context.getBean("metricsListener", Recording.class).events;
			int half = threads * calls / 2;
			// plain names no listeners, so every global listener (audit among them) hears it.
			assertThat(audit).hasSize(6 * half).allMatch(event -> event.contains(" audited[") || event.contains(" plain["));
			assertThat(audit.stream().filter(event -> event.contains(" audited["))).hasSize(3 * half);
			assertThat(metrics).hasSize(3 * half).allMatch(event -> event.contains(" plain["));
		});
	}

	public static class Broken implements RetryListener {

		@Override
		public boolean open(RetryContext context) {
			throw new IllegalStateException("broken open");
		}

		@Override
		public void onSuccess(RetryContext context, @Nullable Object result) {
			throw new IllegalStateException("broken success");
		}

		@Override
		public void close(RetryContext context, @Nullable Throwable failure) {
			throw new IllegalStateException("broken close");
		}

		@Override
		public String toString() {
			return "broken";
		}

	}

	public static class AlsoBroken extends Broken {

		@Override
		public String toString() {
			return "also broken";
		}

	}

	public static class Recording implements RetryListener {

		final String name;

		final List<String> events = new CopyOnWriteArrayList<>();

		/** The attempts that started, as "method attempt-number". */
		final List<String> attempts = new CopyOnWriteArrayList<>();

		Recording(String name) {
			this.name = name;
		}

		@Override
		public void beforeAttempt(RetryContext context) {
			MethodInvocation invocation = MethodListeners.invocation(context);
			this.attempts.add(((invocation != null) ? invocation.getMethod().getName() : "-") + " "
					+ (context.getRetryCount() + 1));
		}

		@Override
		public boolean open(RetryContext context) {
			record("open", context);
			return true;
		}

		@Override
		public void onSuccess(RetryContext context, @Nullable Object result) {
			record("success", context);
		}

		@Override
		public void onError(RetryContext context, @Nullable Throwable failure) {
			record("error", context);
		}

		@Override
		public void close(RetryContext context, @Nullable Throwable failure) {
			record("close", context);
		}

		private void record(String event, RetryContext context) {
			MethodInvocation invocation = MethodListeners.invocation(context);
			this.events.add(event + " " + ((invocation != null)
					? invocation.getMethod().getName() + java.util.Arrays.toString(invocation.getArguments()) : "-"));
		}

	}

	/** Records each attempt's start and each failure, in order. */
	public static class AttemptRecording extends Recording {

		AttemptRecording() {
			super("attempts");
		}

		@Override
		public boolean open(RetryContext context) {
			return true;
		}

		@Override
		public void beforeAttempt(RetryContext context) {
			this.events.add("before attempt " + (context.getRetryCount() + 1) + " of " + method(context));
		}

		@Override
		public void attemptReturned(RetryContext context) {
			this.events.add("returned " + method(context));
		}

		@Override
		public void onError(RetryContext context, @Nullable Throwable failure) {
			this.events.add("error " + method(context));
		}

		@Override
		public void close(RetryContext context, @Nullable Throwable failure) {
		}

		private static String method(RetryContext context) {
			MethodInvocation invocation = MethodListeners.invocation(context);
			return (invocation != null) ? invocation.getMethod().getName() : "-";
		}

	}

	public static class Client {

		@Retryable
		public String everyone(String sku, int quantity) throws IOException {
			throw new IOException("down");
		}

		@Retryable(listeners = "auditListener")
		public String audited(String id) {
			return "ok " + id;
		}

		@Retryable(listeners = "")
		public String unheard(String id) {
			return "quiet " + id;
		}

		@Retryable
		public String plain(String id) {
			return "plain " + id;
		}

		@Retryable(listeners = "auditListener")
		public CompletableFuture<String> later(String id) {
			return CompletableFuture.completedFuture("later " + id);
		}

	}

	public static class Fragile {

		@Retryable(listeners = { "brokenListener", "auditListener" })
		public String both(String id) {
			return "both " + id;
		}

	}

	public static class VeryFragile {

		@Retryable(listeners = { "brokenListener", "auditListener", "alsoBrokenListener" })
		public String allBroken(String id) {
			return "all broken " + id;
		}

	}

	public static class Misnamed {

		@Retryable(listeners = "auditListner")
		public String call(String id) {
			return id;
		}

	}

}
