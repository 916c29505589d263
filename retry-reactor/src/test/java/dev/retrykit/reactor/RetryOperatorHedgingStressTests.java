package dev.retrykit.reactor;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import dev.retrykit.RetryConfig;
import dev.retrykit.RetryMetrics;
import dev.retrykit.RetryTemplate;
import dev.retrykit.hedging.HedgingConfig;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import static org.assertj.core.api.Assertions.assertThat;

class RetryOperatorHedgingStressTests {

	private static final int CALLS = 2_000;

	/**
	 * Copies answer on four threads at random times (a value, nothing, or a failure), hedges start on the
	 * template's timer, and some subscribers cancel half-way: every subscriber still sees at most one value
	 * and exactly one terminal signal unless it cancelled, every copy's subscription ends (answered or
	 * cancelled), and every hedge is counted as won, lost or cancelled.
	 */
	@Test
	void everyCallEndsOnceAndEveryCopyEndsWhenCopiesAnswerOnManyThreads() {
		Scheduler answering = Schedulers.newParallel("hedge-answers", 4);
		try {
			RetryTemplate template = RetryTemplate.builder().name("stress")
				.config(RetryConfig.builder().maxAttempts(3)
					.hedging(HedgingConfig.builder().delay(Duration.ofMillis(1)).build()).build())
				.build();
			AtomicInteger openCopies = new AtomicInteger();
			Mono<String> source = Mono.defer(() -> {
				ThreadLocalRandom random = ThreadLocalRandom.current();
				int outcome = random.nextInt(10);
				Mono<Long> answer = Mono.delay(Duration.ofNanos(random.nextLong(3_000_000)), answering);
				Mono<String> copy = (outcome < 6) ? answer.map(tick -> "value")
						: (outcome < 8) ? answer.then(Mono.<String>empty())
								: answer.then(Mono.<String>error(new IOException("down")));
				return copy.doOnSubscribe(subscription -> openCopies.incrementAndGet())
					.doFinally(signal -> openCopies.decrementAndGet());
			});
			CountDownLatch done = new CountDownLatch(CALLS);
			ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
			for (int i = 0; i < CALLS; i++) {
				boolean cancelling = (i % 10 == 0);
				source.transform(RetryOperator.of(template)).subscribe(new CheckingSubscriber(violations, done, cancelling));
			}
			awaitUntil(() -> done.getCount() == 0, "every call ended");
			awaitUntil(() -> openCopies.get() == 0, "every copy's subscription ended");
			assertThat(violations).isEmpty();
			RetryMetrics metrics = template.getMetrics();
			awaitUntil(() -> metrics.getHedgesStarted() == metrics.getHedgesWon() + metrics.getHedgesLost()
					+ metrics.getHedgesCancelled(), "every hedge counted once: " + metrics);
			assertThat(metrics.getHedgesStarted()).isPositive();
		}
		finally {
			answering.dispose();
		}
	}

	private static void awaitUntil(BooleanSupplier condition, String what) {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() - deadline > 0) {
				throw new AssertionError("Timed out waiting until " + what);
			}
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
		}
	}

	/**
	 * Counts the signals it gets (a plain subscriber, so that nothing before it drops a second terminal
	 * signal); one in ten cancels from another thread soon after subscribing.
	 */
	private static final class CheckingSubscriber implements CoreSubscriber<String> {

		private final ConcurrentLinkedQueue<String> violations;

		private final CountDownLatch done;

		private final boolean cancelling;

		private final AtomicInteger values = new AtomicInteger();

		private final AtomicInteger terminals = new AtomicInteger();

		private final AtomicBoolean ended = new AtomicBoolean();

		CheckingSubscriber(ConcurrentLinkedQueue<String> violations, CountDownLatch done, boolean cancelling) {
			this.violations = violations;
			this.done = done;
			this.cancelling = cancelling;
		}

		@Override
		public void onSubscribe(Subscription subscription) {
			subscription.request(Long.MAX_VALUE);
			if (this.cancelling) {
				Schedulers.parallel().schedule(() -> {
					subscription.cancel();
					end();
				}, ThreadLocalRandom.current().nextLong(2_000), TimeUnit.MICROSECONDS);
			}
		}

		@Override
		public void onNext(String value) {
			if (this.values.incrementAndGet() != 1 || this.terminals.get() != 0) {
				this.violations.add("a second value, or one after the terminal signal");
			}
		}

		@Override
		public void onError(Throwable failure) {
			if (!(failure instanceof IOException)) {
				this.violations.add("unexpected " + failure);
			}
			terminal();
		}

		@Override
		public void onComplete() {
			terminal();
		}

		private void terminal() {
			if (this.terminals.incrementAndGet() != 1) {
				this.violations.add("a second terminal signal");
			}
			end();
		}

		private void end() {
			if (this.ended.compareAndSet(false, true)) {
				this.done.countDown();
			}
		}

	}

}
