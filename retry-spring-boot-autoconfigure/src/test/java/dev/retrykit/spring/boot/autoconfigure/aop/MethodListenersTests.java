package dev.retrykit.spring.boot.autoconfigure.aop;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.retrykit.RetryContext;
import dev.retrykit.RetryListener;
import dev.retrykit.VirtualTime;
import dev.retrykit.annotation.Retryable;
import dev.retrykit.spring.boot.autoconfigure.RetryAutoConfiguration;
import dev.retrykit.spring.boot.autoconfigure.RetryFailureAnalyzer;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

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
	void anUnknownListenerNameFailsStartupNamingTheMethodAndTheName() {
		this.runner.withBean(Misnamed.class, Misnamed::new).run(context -> {
			FailureAnalysis analysis = new RetryFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(analysis.getDescription()).contains("Misnamed.call(String)", "'auditListner'");
			assertThat(analysis.getAction()).contains("auditListener", "metricsListener");
		});
	}

	@Test
	void aMonoMethodThatNamesListenersFailsStartup() {
		this.runner.withBean(ReactiveClient.class, ReactiveClient::new).run(context -> assertThat(
				new RetryFailureAnalyzer().analyze(context.getStartupFailure()).getDescription())
			.contains("ReactiveClient.call()", "subscription"));
	}

	public static class Recording implements RetryListener {

		final String name;

		final List<String> events = new CopyOnWriteArrayList<>();

		Recording(String name) {
			this.name = name;
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

		@Retryable(listeners = "auditListener")
		public CompletableFuture<String> later(String id) {
			return CompletableFuture.completedFuture("later " + id);
		}

	}

	public static class Misnamed {

		@Retryable(listeners = "auditListner")
		public String call(String id) {
			return id;
		}

	}

	public static class ReactiveClient {

		@Retryable(listeners = "auditListener")
		public Mono<String> call() {
			return Mono.just("x");
		}

	}

}
