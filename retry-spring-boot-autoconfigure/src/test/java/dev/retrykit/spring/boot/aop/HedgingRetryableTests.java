package dev.retrykit.spring.boot.aop;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import dev.retrykit.RetryTemplate;
import dev.retrykit.context.RetryContext;
import dev.retrykit.VirtualTime;
import dev.retrykit.annotation.Retryable;
import dev.retrykit.spring.boot.autoconfigure.RetryAutoConfiguration;
import dev.retrykit.spring.boot.autoconfigure.RetryFailureAnalyzer;
import dev.retrykit.spring.boot.aop.HedgedCopiesChainTests.CountingInterceptor;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;

import org.springframework.aop.Advisor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.Ordered;

import static dev.retrykit.spring.boot.aop.HedgedCopiesChainTests.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code @Retryable} methods of a hedging instance: a {@code CompletableFuture} or {@code Mono} method hedges,
 * a blocking one hedges on the executor bean its instance names, what cannot hedge fails startup.
 */
class HedgingRetryableTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, RetryAutoConfiguration.class))
		.withBean(VirtualTime.class, VirtualTime::new)
		.withPropertyValues("retry.instances.search.max-attempts=2", "retry.instances.search.hedging.enabled=true",
				"retry.instances.search.hedging.delay=10ms");

	@Test
	void anAsyncMethodIsCalledAgainAfterTheDelayAndTheFirstAnswerWins() {
		this.runner.withBean(Search.class, Search::new).run(context -> {
			// A proxy: the target's state is read through its methods.
			Search search = context.getBean(Search.class);
			CompletableFuture<String> result = search.find("q");
			assertThat(search.calls()).hasSize(1);

			context.getBean(VirtualTime.class).advance(Duration.ofMillis(10));

			assertThat(search.calls()).hasSize(2);
			assertThat(search.hedged()).containsExactly(false, true);
			search.calls().get(1).complete("second");
			assertThat(result).isCompletedWithValue("second");
			assertThat(search.calls().get(0)).isCancelled();
		});
	}

	@Test
	void aBlockingMethodOfAHedgingInstanceFailsStartupNamingTheExecutorProperty() {
		this.runner.withBean(Blocking.class, Blocking::new).run(context -> {
			FailureAnalysis analysis = new RetryFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(analysis.getDescription()).contains("Blocking.find(", "retry.instances.search.hedging.executor");
		});
	}

	@Test
	void aBlockingMethodHedgesOnTheExecutorBeanAndEveryCopyRunsTheInnerInterceptors() {
		this.runner.withBean(BlockingSearch.class, BlockingSearch::new)
			.withBean("copies", ExecutorService.class, HedgingRetryableTests::copiesExecutor,
					definition -> definition.setDestroyMethodName("shutdownNow"))
			.withBean("counter", Advisor.class,
					() -> HedgedCopiesChainTests.advisor(new CountingInterceptor(), Ordered.LOWEST_PRECEDENCE))
			.withPropertyValues("retry.instances.search.hedging.executor=copies",
					"retry.instances.search.hedging.interrupt-losers=true")
			.run(context -> {
				BlockingSearch search = context.getBean(BlockingSearch.class);
				CompletableFuture<String> result = CompletableFuture.supplyAsync(() -> {
					try {
						return search.find("q");
					}
					catch (Exception ex) {
						throw new java.util.concurrent.CompletionException(ex);
					}
				},
						command -> new Thread(command, "caller").start());
				VirtualTime time = context.getBean(VirtualTime.class);
				await(() -> search.calls().size() == 1 && time.pendingTasks() > 0, "the first copy, and the timer for the next");

				time.advance(Duration.ofMillis(10));
				await(() -> search.calls().size() == 2, "the hedge");
				search.calls().get(1).answer.complete("second");

				assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo("second");
				await(() -> search.calls().get(0).interrupted, "the loser's interrupt");
				assertThat(search.calls()).extracting(call -> call.hedged).containsExactly(false, true);
				assertThat(search.calls()).extracting(call -> call.thread).doesNotContain("caller");
				CountingInterceptor counter = HedgedCopiesChainTests.counter(context.getBean("counter", Advisor.class));
				assertThat(counter.seen).hasValue(2);
			});
	}

	/** Virtual threads where the JDK has them (21+), else a thread per task from a cached pool. */
	private static ExecutorService copiesExecutor() {
		try {
			return (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
		}
		catch (ReflectiveOperationException ex) {
			return Executors.newCachedThreadPool();
		}
	}

	@Test
	void aFluxMethodOfAHedgingInstanceFailsStartup() {
		this.runner.withBean(Streaming.class, Streaming::new).run(context -> {
			FailureAnalysis analysis = new RetryFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(analysis.getDescription()).contains("Streaming.all()", "Flux");
			assertThat(analysis.getAction()).contains("Return Mono");
		});
	}

	@Test
	void aMonoMethodIsSubscribedAgainAfterTheDelayAndTheFirstValueWins() {
		this.runner.withBean(SingleValue.class, SingleValue::new).run(context -> {
			SingleValue single = context.getBean(SingleValue.class);
			AtomicReference<String> result = new AtomicReference<>();
			single.one().subscribe(result::set);
			assertThat(single.copies()).hasSize(1);

			context.getBean(VirtualTime.class).advance(Duration.ofMillis(10));

			assertThat(single.copies()).hasSize(2);
			assertThat(single.hedged()).containsExactly(false, true);
			single.copies().get(1).success("second");
			assertThat(result).hasValue("second");
			assertThat(single.cancelled()).containsExactly(1);
			assertThat(single.copies()).hasSize(2);
			assertThat(single.assembled()).hasValue(1);
		});
	}

	@Test
	void aStatefulMethodOfAHedgingInstanceFailsStartup() {
		this.runner.withBean(StatefulSearch.class, StatefulSearch::new).run(context -> {
			FailureAnalysis analysis = new RetryFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(analysis.getDescription()).contains("StatefulSearch.find(", "stateful");
		});
	}

	static class Search {

		final List<CompletableFuture<String>> calls = new CopyOnWriteArrayList<>();

		final List<Boolean> hedged = new CopyOnWriteArrayList<>();

		@Retryable("search")
		public CompletableFuture<String> find(String query) {
			RetryContext context = RetryTemplate.currentContext();
			this.hedged.add(context != null && Boolean.TRUE.equals(context.getAttribute("retry.hedged")));
			CompletableFuture<String> call = new CompletableFuture<>();
			this.calls.add(call);
			return call;
		}

		public List<CompletableFuture<String>> calls() {
			return this.calls;
		}

		public List<Boolean> hedged() {
			return this.hedged;
		}

	}

	static class Blocking {

		@Retryable("search")
		public String find(String query) {
			return query;
		}

	}

	static class BlockingSearch {

		final List<Call> calls = new CopyOnWriteArrayList<>();

		@Retryable("search")
		public String find(String query) throws Exception {
			RetryContext context = RetryTemplate.currentContext();
			Call call = new Call(context != null && Boolean.TRUE.equals(context.getAttribute("retry.hedged")),
					Thread.currentThread().getName());
			this.calls.add(call);
			try {
				return call.answer.get();
			}
			catch (InterruptedException ex) {
				call.interrupted = true;
				throw ex;
			}
		}

		public List<Call> calls() {
			return this.calls;
		}

	}

	static final class Call {

		final boolean hedged;

		final String thread;

		final CompletableFuture<String> answer = new CompletableFuture<>();

		volatile boolean interrupted;

		Call(boolean hedged, String thread) {
			this.hedged = hedged;
			this.thread = thread;
		}

	}

	static class Streaming {

		@Retryable("search")
		public Flux<String> all() {
			return Flux.just("a");
		}

	}

	static class SingleValue {

		final List<MonoSink<String>> copies = new CopyOnWriteArrayList<>();

		final List<Boolean> hedged = new CopyOnWriteArrayList<>();

		final List<Integer> cancelled = new CopyOnWriteArrayList<>();

		final AtomicInteger assembled = new AtomicInteger();

		/** Called once per call (to assemble the Mono); each copy is a subscription to it. */
		@Retryable("search")
		public Mono<String> one() {
			this.assembled.incrementAndGet();
			return Mono.create(sink -> {
				RetryContext context = RetryTemplate.currentContext();
				this.hedged.add(context != null && Boolean.TRUE.equals(context.getAttribute("retry.hedged")));
				int copy = this.copies.size() + 1;
				sink.onCancel(() -> this.cancelled.add(copy));
				this.copies.add(sink);
			});
		}

		public List<MonoSink<String>> copies() {
			return this.copies;
		}

		public List<Boolean> hedged() {
			return this.hedged;
		}

		public List<Integer> cancelled() {
			return this.cancelled;
		}

		public AtomicInteger assembled() {
			return this.assembled;
		}

	}

	static class StatefulSearch {

		@Retryable(value = "search", stateful = true)
		public CompletableFuture<String> find(String query) {
			return CompletableFuture.completedFuture(query);
		}

	}

}
