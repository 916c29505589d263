package dev.retrykit;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.context.RetryContext;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

class RetryContextScopeTests {

	private final RetryTemplate template = RetryTemplate.builder().name("scoped").maxAttempts(3)
		.backoff(BackoffPolicy.none()).build();

	@Test
	void aScopeMakesAKeptContextCurrentUntilItIsClosedAndScopesNest() {
		List<RetryContext> kept = new ArrayList<>();
		this.template.execute(context -> {
			if (context.getRetryCount() < 1) {
				throw new IllegalStateException("first attempt fails");
			}
			kept.add(RetryContextScope.capture());
			return "ok";
		});
		RetryContext retry = kept.get(0);
		assertThat(retry.getRetryCount()).isEqualTo(1);
		assertThat(RetryTemplate.currentContext()).isNull();

		try (RetryContextScope outer = RetryContextScope.enter(retry)) {
			assertThat(RetryTemplate.currentContext()).isSameAs(retry);
			RetryContext other = this.template.execute(context -> RetryContextScope.capture());
			try (RetryContextScope inner = RetryContextScope.enter(other)) {
				assertThat(RetryTemplate.currentContext()).isSameAs(other);
			}
			assertThat(RetryTemplate.currentContext()).isSameAs(retry);
		}
		assertThat(RetryTemplate.currentContext()).isNull();
	}

	@Test
	void aFirstAttemptsPooledContextIsCapturedAsACopyThatTheNextCallDoesNotChange() {
		RetryContext first = this.template.execute(context -> {
			context.setAttribute("seen", "first call");
			return RetryContextScope.capture();
		});
		this.template.execute(context -> {
			context.setAttribute("seen", "second call");
			return "ok";
		});
		assertThat(first.getRetryCount()).isZero();
		assertThat(first.getAttribute("seen")).isEqualTo("first call");
		assertThat(RetryContextScope.capture()).as("outside a call").isNull();
	}

	@Test
	void aScopeIsClosedOnTheThreadThatEnteredItAndASecondCloseDoesNothing() throws Exception {
		RetryContext context = this.template.execute(c -> RetryContextScope.capture());
		RetryContextScope scope = RetryContextScope.enter(context);
		Throwable elsewhere = CompletableFuture.supplyAsync(() -> {
			try {
				scope.close();
				return null;
			}
			catch (Throwable ex) {
				return ex;
			}
		}).get();
		assertThat(elsewhere).isInstanceOf(IllegalStateException.class)
			.hasMessageContaining("closed on the thread that entered it");
		assertThat(RetryTemplate.currentContext()).as("still current here").isSameAs(context);
		scope.close();
		scope.close();
		assertThat(RetryTemplate.currentContext()).isNull();
		assertThatNullPointerException().isThrownBy(() -> RetryContextScope.enter(null));
	}

}
