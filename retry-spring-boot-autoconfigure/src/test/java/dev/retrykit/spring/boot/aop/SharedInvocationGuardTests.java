package dev.retrykit.spring.boot.aop;

import java.lang.reflect.AccessibleObject;
import java.lang.reflect.Method;
import java.util.concurrent.atomic.AtomicInteger;

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
 * run the chain on that shared invocation while the first copy is inside it.
 */
class SharedInvocationGuardTests {

	private final AtomicInteger proceeded = new AtomicInteger();

	@Test
	void aHedgeOfACallPreparedWithoutHedgingIsNotRunOnTheSharedInvocation() {
		InvocationAttempt attempt = new InvocationAttempt(new Counting(), CallerContext.none(), null) {
		};
		MutableRetryContext hedge = new MutableRetryContext("search", null);
		hedge.restore(1, null, false);
		hedge.setAttribute("retry.hedged", Boolean.TRUE);
		ContextStack stack = ContextStack.get();

		stack.push(hedge);
		try {
			assertThatIllegalStateException().isThrownBy(attempt::proceed)
				.withMessageContaining("Retry 'search' started hedging").withMessageContaining("copy 2 is not sent");
		}
		finally {
			stack.pop();
		}
		assertThat(this.proceeded).hasValue(0);
	}

	@Test
	void theFirstCopyAndAPlainAttemptRunOnTheInvocation() throws Throwable {
		InvocationAttempt attempt = new InvocationAttempt(new Counting(), CallerContext.none(), null) {
		};
		assertThat(attempt.proceed()).isEqualTo("proceeded");
		MutableRetryContext retry = new MutableRetryContext("search", null);
		retry.restore(1, null, false);
		ContextStack.get().push(retry);
		try {
			assertThat(attempt.proceed()).isEqualTo("proceeded");
		}
		finally {
			ContextStack.get().pop();
		}
		assertThat(this.proceeded).hasValue(2);
	}

	/** An invocation that counts how often it proceeded. */
	private final class Counting implements MethodInvocation {

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
