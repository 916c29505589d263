package dev.retrykit.spring.boot.aop;

import java.io.IOException;

import org.junit.jupiter.api.Test;

import org.springframework.aop.ProxyMethodInvocation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;

/**
 * The path taken where the chain index cannot be rewound (another invocation class, or a runtime that
 * denies access to the field): every attempt proceeds on its own invocable clone, never on the
 * invocation itself, so no interceptor inside the retry is skipped.
 */
class AttemptInvokerTests {

	@Test
	void withoutAReachableIndexEachAttemptProceedsOnAFreshClone() throws Throwable {
		ProxyMethodInvocation invocation = mock(ProxyMethodInvocation.class);
		ProxyMethodInvocation first = mock(ProxyMethodInvocation.class);
		ProxyMethodInvocation second = mock(ProxyMethodInvocation.class);
		given(invocation.invocableClone()).willReturn(first, second);
		given(first.proceed()).willThrow(new IOException("down"));
		given(second.proceed()).willReturn("ok");

		int mark = AttemptInvoker.mark(invocation);
		assertThatThrownBy(() -> AttemptInvoker.proceed(invocation, mark)).hasMessage("down");
		assertThat(AttemptInvoker.proceed(invocation, mark)).isEqualTo("ok");
		verify(invocation, never()).proceed();
	}

	@Test
	void synchronousAttemptsWithoutAReachableIndexAlsoProceedOnClones() throws Throwable {
		ProxyMethodInvocation invocation = mock(ProxyMethodInvocation.class);
		ProxyMethodInvocation first = mock(ProxyMethodInvocation.class);
		ProxyMethodInvocation second = mock(ProxyMethodInvocation.class);
		given(invocation.invocableClone()).willReturn(first, second);
		given(first.proceed()).willThrow(new IOException("down"));
		given(second.proceed()).willReturn("ok");

		assertThatThrownBy(() -> AttemptInvoker.proceedAndRewind(invocation)).hasMessage("down");
		assertThat(AttemptInvoker.proceedAndRewind(invocation)).isEqualTo("ok");
		verify(invocation, never()).proceed();
	}

}
