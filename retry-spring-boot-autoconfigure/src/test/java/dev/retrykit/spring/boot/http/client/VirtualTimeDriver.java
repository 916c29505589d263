package dev.retrykit.spring.boot.http.client;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.retrykit.VirtualTime;
import reactor.core.publisher.Mono;

/**
 * Waits for an async call whose retries are scheduled on a {@link VirtualTime}: each pending retry is run at once by
 * advancing virtual time to it, while the call's network I/O runs in real time on the client's threads.
 */
final class VirtualTimeDriver {

	private VirtualTimeDriver() {
	}

	static <T> T await(Mono<T> call, VirtualTime time) throws Throwable {
		CompletableFuture<T> future = call.toFuture();
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
		while (true) {
			try {
				return future.get(1, TimeUnit.MILLISECONDS);
			}
			catch (ExecutionException ex) {
				throw ex.getCause();
			}
			catch (TimeoutException ex) {
				Duration next = time.untilNextTask();
				if (next != null) {
					time.advance(next);
				}
				if (System.nanoTime() > deadline) {
					throw new AssertionError("the call did not end within 20 s");
				}
			}
		}
	}

}
