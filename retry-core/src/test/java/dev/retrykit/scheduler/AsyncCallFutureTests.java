package dev.retrykit.scheduler;

import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import dev.retrykit.RetryTemplate;
import dev.retrykit.VirtualTime;
import dev.retrykit.backoff.BackoffPolicy;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The future that {@code executeAsync} hands a caller is a {@link CompletableFuture} and nothing more:
 * the engine's callbacks (the scheduler's task, the attempt's completion) are not reachable from it.
 */
class AsyncCallFutureTests {

	private final VirtualTime time = new VirtualTime();

	private final RetryTemplate template = RetryTemplate.builder().virtualTime(this.time)
		.backoff(BackoffPolicy.fixed(Duration.ofSeconds(1))).maxAttempts(3).build();

	@Test
	void theFutureOfACallWaitingForItsRetryIsNeitherATaskNorACallback() {
		AtomicInteger attempts = new AtomicInteger();
		CompletableFuture<String> future = this.template.executeAsync(() -> (attempts.incrementAndGet() == 1)
				? CompletableFuture.failedFuture(new IOException("first")) : CompletableFuture.completedFuture("ok"));

		assertThat(future).isNotDone();
		assertOnlyTheCompletableFutureApi(future);
		this.time.advance(Duration.ofSeconds(1));
		assertThat(future).isCompletedWithValue("ok");
	}

	@Test
	void theFutureOfACallWithARecoveryIsNeitherATaskNorACallback() {
		CompletableFuture<String> future = this.template.executeAsync(
				() -> CompletableFuture.failedFuture(new IOException("down")),
				failure -> CompletableFuture.completedFuture("fallback"));

		assertOnlyTheCompletableFutureApi(future);
		this.time.advance(Duration.ofSeconds(2));
		assertThat(future).isCompletedWithValue("fallback");
	}

	@Test
	void theFutureOfACallWhoseAttemptIsInFlightIsNeitherATaskNorACallback() {
		CompletableFuture<String> attempt = new CompletableFuture<>();
		CompletableFuture<String> future = this.template.executeAsync(() -> attempt);

		assertOnlyTheCompletableFutureApi(future);
		attempt.complete("late");
		assertThat(future).isCompletedWithValue("late");
	}

	@Test
	void cancellingTheFutureStillCancelsThePendingRetry() {
		AtomicInteger attempts = new AtomicInteger();
		CompletableFuture<String> future = this.template.executeAsync(() -> {
			attempts.incrementAndGet();
			return CompletableFuture.failedFuture(new IOException("down"));
		});

		assertThat(future.cancel(false)).isTrue();
		this.time.advance(Duration.ofSeconds(5));
		assertThat(future).isCancelled();
		assertThat(attempts).hasValue(1);
	}

	private static void assertOnlyTheCompletableFutureApi(CompletableFuture<?> future) {
		assertThat(future).isNotInstanceOf(Runnable.class)
			.isNotInstanceOf(java.util.function.BiFunction.class)
			.isNotInstanceOf(dev.retrykit.spi.AbandonableTask.class);
		List<String> extra = Arrays.stream(future.getClass().getMethods())
			.filter(method -> !Modifier.isStatic(method.getModifiers()))
			.filter(method -> !declaredByCompletableFuture(method))
			.map(Method::toGenericString)
			.collect(Collectors.toList());
		assertThat(extra).as("public methods beyond CompletableFuture's").isEmpty();
	}

	private static boolean declaredByCompletableFuture(Method method) {
		try {
			CompletableFuture.class.getMethod(method.getName(), method.getParameterTypes());
			return true;
		}
		catch (NoSuchMethodException ex) {
			return false;
		}
	}

}
