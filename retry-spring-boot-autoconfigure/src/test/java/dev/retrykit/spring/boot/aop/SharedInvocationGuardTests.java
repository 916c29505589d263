package dev.retrykit.spring.boot.aop;

import java.lang.reflect.AccessibleObject;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import dev.retrykit.RetryConfig;
import dev.retrykit.RetryListener;
import dev.retrykit.RetryRegistry;
import dev.retrykit.RetryTemplate;
import dev.retrykit.VirtualTime;
import dev.retrykit.context.RetryContext;
import dev.retrykit.hedging.HedgingConfig;

import dev.retrykit.internal.ContextStack;
import dev.retrykit.internal.MutableRetryContext;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * A call prepared as not hedging runs on one invocation; when a live switch-on made its instance hedge
 * before the engine read the configuration (the check and the act are two reads), a hedge of it must not
 * run the chain on that shared invocation while the first copy is inside it. The attempt learns that it
 * is a hedge from the context its engine hands it, never from the thread's current context.
 */
class SharedInvocationGuardTests {

	private final AtomicInteger proceeded = new AtomicInteger();

	@Test
	void aHedgeOfACallPreparedWithoutHedgingIsNotRunOnTheSharedInvocation() {
		InvocationAttempt attempt = new InvocationAttempt(new Counting(), CallerContext.none(), null) {
		};
		assertThatIllegalStateException().isThrownBy(() -> attempt.proceed(copy(2)))
			.withMessageContaining("Retry 'search' started hedging").withMessageContaining("copy 2 is not sent");
		assertThat(this.proceeded).hasValue(0);
	}

	@Test
	void theFirstCopyAndAPlainAttemptRunOnTheInvocation() throws Throwable {
		InvocationAttempt attempt = new InvocationAttempt(new Counting(), CallerContext.none(), null) {
		};
		assertThat(attempt.proceed(null)).isEqualTo("proceeded");
		assertThat(attempt.proceed(retry())).isEqualTo("proceeded");
		assertThat(this.proceeded).hasValue(2);
	}

	@Test
	void anAttemptIsJudgedByTheContextTheEngineHandsItNotByTheThreadsCurrentOne() throws Throwable {
		InvocationAttempt attempt = new InvocationAttempt(new Counting(), CallerContext.none(), null) {
		};
		ContextStack stack = ContextStack.get();
		stack.push(copy(2));
		try {
			assertThat(attempt.proceed(retry())).isEqualTo("proceeded");
		}
		finally {
			stack.pop();
		}
		stack.push(retry());
		try {
			assertThatIllegalStateException().isThrownBy(() -> attempt.proceed(copy(3)))
				.withMessageContaining("copy 3 is not sent");
		}
		finally {
			stack.pop();
		}
		assertThat(this.proceeded).hasValue(1);
	}

	@Test
	void anAsyncCallPreparedWithoutHedgingRefusesTheHedgeItsEngineStartsWithTheHedgesOwnContext() {
		VirtualTime time = new VirtualTime();
		List<String> failures = new CopyOnWriteArrayList<>();
		RetryRegistry registry = RetryRegistry.builder().virtualTime(time).listener(new RetryListener() {

			@Override
			public void onError(RetryContext context, @Nullable Throwable failure) {
				failures.add((context.getRetryCount() + 1) + ": " + ((failure != null) ? failure.getMessage() : null));
			}

		}).build();
		RetryTemplate template = registry.template("search");
		Answering invocation = new Answering();
		Supplier<CompletableFuture<@Nullable Object>> call = new AsyncMethodRetry(template, null).call(invocation);
		// A live switch-on between the call's preparation and its start: the engine hedges a call that shares one invocation.
		registry.replace("search", RetryConfig.builder(template.getConfig()).maxAttempts(2)
			.hedging(HedgingConfig.builder().delay(Duration.ofMillis(10)).build()).build());

		CompletableFuture<@Nullable Object> result = call.get();
		time.advance(Duration.ofMillis(10));

		assertThat(invocation.answers).hasSize(1);
		assertThat(failures).singleElement().asString().startsWith("2: ").contains("copy 2 is not sent");
		invocation.answers.get(0).complete("first");
		assertThat(result).isCompletedWithValue("first");
	}

	private static MutableRetryContext retry() {
		MutableRetryContext retry = new MutableRetryContext("search", null);
		retry.restore(1, null, false);
		return retry;
	}

	/** {@return the context of a hedged call's copy {@code number}, a hedge after the first} */
	private static MutableRetryContext copy(int number) {
		MutableRetryContext hedge = new MutableRetryContext("search", null);
		hedge.restore(number - 1, null, false);
		hedge.setAttribute("retry.hedged", Boolean.TRUE);
		return hedge;
	}

	/** An async method's invocation: each call returns a future the test completes. */
	private final class Answering extends Counting {

		final List<CompletableFuture<Object>> answers = new CopyOnWriteArrayList<>();

		@Override
		public @Nullable Object proceed() {
			CompletableFuture<Object> answer = new CompletableFuture<>();
			this.answers.add(answer);
			return answer;
		}

	}

	/** An invocation that counts how often it proceeded. */
	private class Counting implements MethodInvocation {

		@Override
		public Method getMethod() {
			try {
				return Object.class.getMethod("toString");
			}
			catch (NoSuchMethodException ex) {
				throw new IllegalStateException(ex);
			}
		}

		@Override
		public Object[] getArguments() {
			return new Object[0];
		}

		@Override
		public @Nullable Object proceed() {
			SharedInvocationGuardTests.this.proceeded.incrementAndGet();
			return "proceeded";
		}

		@Override
		public @Nullable Object getThis() {
			return null;
		}

		@Override
		public AccessibleObject getStaticPart() {
			return getMethod();
		}

	}

}
