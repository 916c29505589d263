package dev.retrykit.reactor;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import dev.retrykit.RetryTemplate;
import dev.retrykit.backoff.BackoffPolicy;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import static org.assertj.core.api.Assertions.assertThat;

class RetryOperatorStressTests {

	private static final int CALLS = 2_000;

	/**
	 * Sources emit on other threads than the one requesting, attempts time out while they emit (so the
	 * next attempt starts while the previous one may still be forwarding an element), and downstream
	 * requests in random steps: every subscriber still sees serial signals, never more elements than it
	 * requested, and exactly one terminal signal.
	 */
	@Test
	void signalsStaySerialAndWithinDemandWhenAttemptsTimeOutWhileEmitting() throws Exception {
		Scheduler emitters = Schedulers.newParallel("stress-emitters", 4);
		ExecutorService requesters = Executors.newFixedThreadPool(4);
		try {
			RetryTemplate template = RetryTemplate.builder().maxAttempts(3).backoff(BackoffPolicy.none())
				.retryOn(IOException.class).attemptTimeout(Duration.ofNanos(200_000)).build();
			CountDownLatch done = new CountDownLatch(CALLS);
			ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
			for (int i = 0; i < CALLS; i++) {
				AtomicInteger attempt = new AtomicInteger();
				Flux<Integer> source = Flux.defer(() -> {
					int n = attempt.incrementAndGet();
					Flux<Integer> elements = Flux.range(0, 50).publishOn(emitters, 4);
					return (n < 3) ? elements.take(ThreadLocalRandom.current().nextInt(50))
						.concatWith(Flux.error(new IOException("down"))) : elements;
				});
				source.transformDeferred(RetryOperator.of(template))
					.subscribe(new CheckingSubscriber(requesters, violations, done));
			}
			assertThat(done.await(60, TimeUnit.SECONDS)).as("every call ended").isTrue();
			assertThat(violations).isEmpty();
		}
		finally {
			requesters.shutdownNow();
			emitters.dispose();
		}
	}

	/**
	 * A {@code Mono}'s value arrives on one thread while downstream requests on another: whichever comes
	 * second emits it, exactly once, followed by exactly one completion.
	 */
	@Test
	void aMonosValueIsEmittedOnceWhenItsRequestRacesIt() throws Exception {
		Scheduler emitters = Schedulers.newParallel("stress-values", 2);
		ExecutorService requesters = Executors.newFixedThreadPool(2);
		try {
			RetryTemplate template = RetryTemplate.builder().maxAttempts(3).backoff(BackoffPolicy.none()).build();
			CountDownLatch done = new CountDownLatch(CALLS);
			ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
			for (int i = 0; i < CALLS; i++) {
				AtomicInteger values = new AtomicInteger();
				AtomicInteger completions = new AtomicInteger();
				Mono.just(i).publishOn(emitters).transformDeferred(RetryOperator.of(template))
					.subscribe(new BaseSubscriber<Integer>() {
						@Override
						protected void hookOnSubscribe(Subscription subscription) {
							requesters.execute(() -> request(1));
						}

						@Override
						protected void hookOnNext(Integer value) {
							values.incrementAndGet();
						}

						@Override
						protected void hookOnComplete() {
							if (values.get() != 1 || completions.incrementAndGet() != 1) {
								violations.add("values " + values + ", completions " + completions);
							}
							done.countDown();
						}
					});
			}
			assertThat(done.await(60, TimeUnit.SECONDS)).as("every call completed").isTrue();
			assertThat(violations).isEmpty();
		}
		finally {
			requesters.shutdownNow();
			emitters.dispose();
		}
	}

	/** Requests 1 to 8 at a time from another thread, and checks the Reactive Streams rules it relies on. */
	private static final class CheckingSubscriber extends BaseSubscriber<Integer> {

		private final ExecutorService requesters;

		private final ConcurrentLinkedQueue<String> violations;

		private final CountDownLatch done;

		private final AtomicBoolean inSignal = new AtomicBoolean();

		private final AtomicLong outstanding = new AtomicLong();

		private final AtomicInteger terminals = new AtomicInteger();

		CheckingSubscriber(ExecutorService requesters, ConcurrentLinkedQueue<String> violations, CountDownLatch done) {
			this.requesters = requesters;
			this.violations = violations;
			this.done = done;
		}

		@Override
		protected void hookOnSubscribe(Subscription subscription) {
			requestMore();
		}

		private void requestMore() {
			long n = ThreadLocalRandom.current().nextInt(1, 9);
			this.outstanding.addAndGet(n);
			this.requesters.execute(() -> request(n));
		}

		@Override
		protected void hookOnNext(Integer value) {
			enter("onNext");
			if (this.terminals.get() != 0) {
				this.violations.add("onNext after the terminal signal");
			}
			if (this.outstanding.decrementAndGet() < 0) {
				this.violations.add("more elements than requested");
			}
			if (this.outstanding.get() == 0) {
				requestMore();
			}
			this.inSignal.set(false);
		}

		@Override
		protected void hookOnComplete() {
			terminal("onComplete");
		}

		@Override
		protected void hookOnError(Throwable failure) {
			if (!(failure instanceof IOException) && !(failure instanceof java.util.concurrent.TimeoutException)) {
				this.violations.add("unexpected " + failure);
			}
			terminal("onError");
		}

		private void terminal(String signal) {
			enter(signal);
			if (this.terminals.incrementAndGet() != 1) {
				this.violations.add("a second terminal signal: " + signal);
			}
			this.inSignal.set(false);
			this.done.countDown();
		}

		private void enter(String signal) {
			if (!this.inSignal.compareAndSet(false, true)) {
				this.violations.add(signal + " while another signal was being delivered");
			}
		}

	}


}
