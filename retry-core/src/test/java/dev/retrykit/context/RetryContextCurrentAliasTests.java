package dev.retrykit.context;

import java.util.concurrent.atomic.AtomicReference;

import dev.retrykit.RetryTemplate;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The deprecated {@code RetryContext.current()} answers as {@code RetryTemplate.currentContext()} for one release. */
class RetryContextCurrentAliasTests {

	@Test
	@SuppressWarnings("removal")
	void deprecatedAliasAnswersTheContextTheCallbackWasHanded() {
		RetryTemplate template = RetryTemplate.builder().name("alias").build();
		AtomicReference<RetryContext> handed = new AtomicReference<>();
		AtomicReference<RetryContext> viaAlias = new AtomicReference<>();
		AtomicReference<RetryContext> viaTemplate = new AtomicReference<>();
		template.execute(context -> {
			handed.set(context);
			viaAlias.set(RetryContext.current());
			viaTemplate.set(RetryTemplate.currentContext());
			return "ok";
		});
		assertThat(viaAlias.get()).isSameAs(handed.get()).isSameAs(viaTemplate.get());
		assertThat(RetryContext.current()).isNull();
		assertThat(RetryTemplate.currentContext()).isNull();
	}

}
