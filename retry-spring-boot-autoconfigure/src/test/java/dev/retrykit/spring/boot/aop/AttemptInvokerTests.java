package dev.retrykit.spring.boot.aop;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.junit.jupiter.api.Test;

import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.framework.ProxyFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.Mockito.mock;

/**
 * Each attempt runs the whole rest of the chain, through Spring's public AOP API only: on the invocation
 * itself when the retry interceptor is innermost (nothing allocated), on clones of a pristine clone when
 * interceptors sit inside it.
 */
class AttemptInvokerTests {

	/** Three attempts of each call, as a retry of a method that fails twice would run them. */
	private final RetryableMethodInterceptor retry = new RetryableMethodInterceptor((method, type) -> invocation -> {
		MethodInvocation start = AttemptInvoker.start(invocation);
		this.starts.add(start);
		for (int attempt = 1;; attempt++) {
			try {
				return start.proceed();
			}
			catch (IOException ex) {
				if (attempt == 3) {
					throw ex;
				}
			}
		}
	});

	private final List<MethodInvocation> starts = new ArrayList<>();

	private final AtomicInteger inner = new AtomicInteger();

	private final MethodInterceptor innerInterceptor = invocation -> {
		this.inner.incrementAndGet();
		return invocation.proceed();
	};

	@Test
	void whenRetryIsInnermostEveryAttemptProceedsOnTheInvocationItself() throws IOException {
		Flaky target = new Flaky(2);
		Service proxy = proxy(target, this.retry);
		assertThat(proxy.call()).isEqualTo("ok after 3");
		assertThat(this.starts).singleElement().isInstanceOf(ProxyMethodInvocation.class)
			.isNotInstanceOf(AttemptInvoker.PristineInvocation.class);
	}

	@Test
	void interceptorsInsideTheRetryRunOnEveryAttempt() throws IOException {
		Flaky target = new Flaky(2);
		Service proxy = proxy(target, this.retry, this.innerInterceptor);
		assertThat(proxy.call()).isEqualTo("ok after 3");
		assertThat(this.inner).hasValue(3);
		assertThat(this.starts).singleElement().isInstanceOf(AttemptInvoker.PristineInvocation.class);
	}

	@Test
	void interceptorsOutsideTheRetryRunOnceAndTheRetryStaysInnermost() throws IOException {
		Flaky target = new Flaky(2);
		Service proxy = proxy(target, this.innerInterceptor, this.retry);
		assertThat(proxy.call()).isEqualTo("ok after 3");
		assertThat(this.inner).hasValue(1);
		assertThat(this.starts).singleElement().isNotInstanceOf(AttemptInvoker.PristineInvocation.class);
	}

	@Test
	void theShapeIsWorkedOutAgainForAProxyWithAnotherChain() throws IOException {
		Service plain = proxy(new Flaky(2), this.retry);
		Service wrapped = proxy(new Flaky(2), this.retry, this.innerInterceptor);
		assertThat(plain.call()).isEqualTo("ok after 3");
		assertThat(wrapped.call()).isEqualTo("ok after 3");
		assertThat(plain.call()).isEqualTo("ok after 4");
		assertThat(this.inner).hasValue(3);
		assertThat(this.starts).extracting(start -> start instanceof AttemptInvoker.PristineInvocation)
			.containsExactly(false, true, false);
	}

	@Test
	void aFailedCallRunsTheInnerInterceptorOnEachOfItsAttempts() {
		Service proxy = proxy(new Flaky(5), this.retry, this.innerInterceptor);
		assertThatThrownBy(proxy::call).isInstanceOf(IOException.class).hasMessage("down 3");
		assertThat(this.inner).hasValue(3);
	}

	@Test
	void anInvocationThatCannotBeClonedProceedsOnItself() {
		MethodInvocation invocation = mock(MethodInvocation.class);
		assertThat(AttemptInvoker.start(invocation)).isSameAs(invocation);
	}

	private static Service proxy(Service target, MethodInterceptor... chain) {
		ProxyFactory factory = new ProxyFactory(target);
		factory.addInterface(Service.class);
		for (MethodInterceptor interceptor : chain) {
			factory.addAdvice(interceptor);
		}
		return (Service) factory.getProxy();
	}

	interface Service {

		String call() throws IOException;

	}

	/** Fails a number of times, then succeeds. */
	static final class Flaky implements Service {

		private final int failures;

		private int calls;

		Flaky(int failures) {
			this.failures = failures;
		}

		@Override
		public String call() throws IOException {
			this.calls++;
			if (this.calls <= this.failures) {
				throw new IOException("down " + this.calls);
			}
			return "ok after " + this.calls;
		}

	}

}
