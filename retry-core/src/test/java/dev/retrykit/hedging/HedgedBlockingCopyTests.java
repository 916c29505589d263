package dev.retrykit.hedging;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.retrykit.RetryTemplate;
import dev.retrykit.VirtualTime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Where the copies of a hedged blocking call run and how losers are stopped: never on the calling
 * thread, and a loser's thread interrupted only with {@code interruptLosers}.
 */
class HedgedBlockingCopyTests {

	private final VirtualTime time = new VirtualTime();

	private final ExecutorService executor = Executors.newCachedThreadPool();

	private final ExecutorService callers = Executors.newCachedThreadPool();

	private final BlockingDownstream downstream = new BlockingDownstream();

	@AfterEach
	void stop() {
		this.executor.shutdownNow();
		this.callers.shutdownNow();
	}

	@Test
	void byDefaultALosingCopyIsCancelledButItsThreadIsNotInterrupted() throws Exception {
		RetryTemplate template = RetryTemplate.builder().name("search").virtualTime(this.time).maxAttempts(2)
			.hedging(HedgingConfig.builder().delay(Duration.ofMillis(10)).executor(this.executor).build()).build();
		CompletableFuture<String> caller = CompletableFuture.supplyAsync(() -> {
			try {
				return template.execute(this.downstream);
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
		}, this.callers);
		this.downstream.awaitCalls(1);
		BlockingDownstream.await(() -> this.time.pendingTasks() > 0, "the timer for the next copy");
		this.time.advance(Duration.ofMillis(10));
		this.downstream.awaitCalls(2);

		this.downstream.copy(2).answer.complete("second");
		assertThat(caller.get(10, TimeUnit.SECONDS)).isEqualTo("second");
		this.downstream.copy(1).answer.complete("first, late");
		this.downstream.copy(1).returned.get(10, TimeUnit.SECONDS);

		assertThat(this.downstream.copy(1).wasInterrupted()).isFalse();
		assertThat(template.getMetrics().getHedgesWon()).isEqualTo(1);
	}

	@Test
	void aThreadPoolThatRunsRefusedTasksOnTheCallerIsRefusedNamingIt() {
		ThreadPoolExecutor pool = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>(1),
				new ThreadPoolExecutor.CallerRunsPolicy());
		try {
			assertThatIllegalArgumentException().isThrownBy(() -> HedgingConfig.builder().executor(pool))
				.withMessageStartingWith("Invalid executor (java.util.concurrent.ThreadPoolExecutor@")
				.withMessageContaining("CallerRunsPolicy");
			pool.setRejectedExecutionHandler(new ThreadPoolExecutor.DiscardPolicy());
			assertThatIllegalArgumentException().isThrownBy(() -> HedgingConfig.builder().executor(pool))
				.withMessageContaining("DiscardPolicy");
		}
		finally {
			pool.shutdownNow();
		}
	}

	@Test
	void theFirstCopyNeverRunsOnTheCallingThread() {
		AtomicInteger ranOnCaller = new AtomicInteger();
		Thread callerThread = Thread.currentThread();
		RetryTemplate template = RetryTemplate.builder().name("search").virtualTime(this.time).maxAttempts(2)
			.hedging(HedgingConfig.builder().delay(Duration.ofMillis(10)).executor(Runnable::run).build()).build();

		assertThatThrownBy(() -> template.execute(context -> {
			if (Thread.currentThread() == callerThread) {
				ranOnCaller.incrementAndGet();
			}
			return "ran";
		})).isInstanceOf(RejectedExecutionException.class).hasMessageContaining("on the calling thread");
		assertThat(ranOnCaller).hasValue(0);
	}

	@Test
	void eachCopyTellsTheListenersAboutItselfOnTheThreadThatRunsIt() throws Exception {
		java.util.Map<Integer, String> told = new java.util.concurrent.ConcurrentHashMap<>();
		RetryTemplate template = RetryTemplate.builder().name("search").virtualTime(this.time).maxAttempts(2)
			.hedging(HedgingConfig.builder().delay(Duration.ofMillis(10)).executor(this.executor).build())
			.listener(new dev.retrykit.RetryListener() {
				@Override
				public void beforeAttempt(dev.retrykit.context.RetryContext context) {
					told.put(context.getRetryCount() + 1, Thread.currentThread().getName());
				}

				@Override
				public void attemptReturned(dev.retrykit.context.RetryContext context) {
					told.merge(context.getRetryCount() + 1, " " + Thread.currentThread().getName(), String::concat);
				}
			})
			.build();
		CompletableFuture<String> caller = CompletableFuture.supplyAsync(() -> {
			try {
				return template.execute(this.downstream);
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
		}, this.callers);
		this.downstream.awaitCalls(1);
		BlockingDownstream.await(() -> this.time.pendingTasks() > 0, "the timer for the next copy");
		this.time.advance(Duration.ofMillis(10));
		this.downstream.awaitCalls(2);
		this.downstream.copy(1).answer.complete("first");
		this.downstream.copy(2).answer.complete("second");

		assertThat(caller.get(10, TimeUnit.SECONDS)).isIn("first", "second");
		BlockingDownstream.await(() -> told.size() == 2 && told.values().stream().allMatch(names -> names.contains(" ")),
				"both copies' attemptReturned");
		for (int copy = 1; copy <= 2; copy++) {
			String thread = this.downstream.copy(copy).thread.getName();
			assertThat(told.get(copy)).isEqualTo(thread + " " + thread);
		}
	}

}
