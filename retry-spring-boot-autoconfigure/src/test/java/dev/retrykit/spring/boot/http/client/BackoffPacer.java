package dev.retrykit.spring.boot.http.client;

import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.retrykit.RetryListener;
import dev.retrykit.VirtualTime;
import dev.retrykit.context.RetryContext;
import reactor.core.publisher.Mono;

/**
 * Waits for an async call under a deadline, whose retries are scheduled on a {@link VirtualTime}: virtual time moves
 * by each backoff the call announces ({@link #onRetry}), and by nothing else, so that an attempt in flight (timed out
 * by the engine at the deadline, on the same virtual clock) is never timed out by the test driving time forward while
 * the network I/O runs in real time. A listener bean: registered on every instance.
 */
final class BackoffPacer implements RetryListener {

	private final Queue<Duration> backoffs = new ConcurrentLinkedQueue<>();

	@Override
	public void onRetry(RetryContext context, Duration delay) {
		this.backoffs.add(delay);
	}

	<T> T await(Mono<T> call, VirtualTime time) throws Throwable {
		CompletableFuture<T> future = call.toFuture();
		long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
		while (true) {
			try {
				return future.get(1, TimeUnit.MILLISECONDS);
			}
			catch (ExecutionException ex) {
				throw ex.getCause();
			}
			catch (TimeoutException ex) {
				Duration backoff = this.backoffs.peek();
				Duration next = time.untilNextTask();
				// The backoff's task is scheduled right after onRetry: advance once it is there.
				if (backoff != null && next != null && next.compareTo(backoff) <= 0) {
					this.backoffs.poll();
					time.advance(backoff);
				}
				if (System.nanoTime() > giveUp) {
					throw new AssertionError("the call did not end within 20 s");
				}
			}
		}
	}

}
