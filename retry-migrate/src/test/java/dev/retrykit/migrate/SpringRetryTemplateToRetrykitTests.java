package dev.retrykit.migrate;

import org.junit.jupiter.api.Test;
import org.openrewrite.test.RecipeSpec;
import org.openrewrite.test.RewriteTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.openrewrite.java.Assertions.java;

class SpringRetryTemplateToRetrykitTests implements RewriteTest {

	@Override
	public void defaults(RecipeSpec spec) {
		spec.recipe(new SpringRetryTemplateToRetrykit()).parser(RetrykitStubs.parser().classpath("spring-retry", "spring-core"));
	}

	@Test
	void aBuilderChainBecomesRetrykitsBuilderWithTheSamePolicy() {
		rewriteRun(java("""
				import java.io.IOException;
				import java.util.concurrent.TimeoutException;

				import org.springframework.retry.support.RetryTemplate;

				class Jobs {

					RetryTemplate fixed = RetryTemplate.builder().maxAttempts(5).fixedBackoff(200).retryOn(IOException.class)
						.retryOn(TimeoutException.class).notRetryOn(IllegalArgumentException.class).traversingCauses().build();

					RetryTemplate exponential = RetryTemplate.builder().exponentialBackoff(100, 2.0, 1000).build();

					RetryTemplate random = RetryTemplate.builder().exponentialBackoff(100, 1.5, 1000, true).build();

					RetryTemplate uniform = RetryTemplate.builder().uniformRandomBackoff(100, 500).build();

					RetryTemplate none = RetryTemplate.builder().maxAttempts(2).build();

				}
				""", """
				import dev.retrykit.RetryTemplate;
				import dev.retrykit.backoff.BackoffPolicy;
				import dev.retrykit.backoff.BackoffType;

				import java.io.IOException;
				import java.time.Duration;
				import java.util.concurrent.TimeoutException;

				class Jobs {

					RetryTemplate fixed = RetryTemplate.builder().maxAttempts(5).backoff(BackoffPolicy.fixed(Duration.ofMillis(200))).retryOn(IOException.class, TimeoutException.class).ignore(IllegalArgumentException.class).build();

					RetryTemplate exponential = RetryTemplate.builder().backoff(BackoffPolicy.exponential(Duration.ofMillis(100), 2.0, Duration.ofMillis(1000))).build();

					RetryTemplate random = RetryTemplate.builder().backoff(BackoffPolicy.builder().type(BackoffType.EXPONENTIAL_RANDOM).delay(Duration.ofMillis(100)).multiplier(1.5).maxDelay(Duration.ofMillis(1000)).build()).build();

					RetryTemplate uniform = RetryTemplate.builder().backoff(BackoffPolicy.builder().type(BackoffType.UNIFORM_RANDOM).delay(Duration.ofMillis(100)).maxDelay(Duration.ofMillis(500)).build()).build();

					RetryTemplate none = RetryTemplate.builder().maxAttempts(2).backoff(BackoffPolicy.none()).build();

				}
				"""));
	}

	@Test
	void callbacksRecoveryAndStateMoveToRetrykitsTypes() {
		// Four imports of dev.retrykit and the context from dev.retrykit.context: under OpenRewrite's default import
		// layout (five of one package fold into a star import) they stay single; a real project's own layout is kept.
		rewriteRun(java("""
				import org.springframework.retry.RecoveryCallback;
				import org.springframework.retry.RetryCallback;
				import org.springframework.retry.RetryContext;
				import org.springframework.retry.support.DefaultRetryState;
				import org.springframework.retry.support.RetryTemplate;

				class Jobs {

					private final RetryTemplate template;

					Jobs(RetryTemplate template) {
						this.template = template;
					}

					String run(String key) {
						RetryCallback<String, RuntimeException> callback = (RetryContext context) -> "attempt " + context.getRetryCount();
						RecoveryCallback<String> recovery = (context) -> "recovered";
						template.execute(callback, recovery);
						return template.execute(callback, recovery, new DefaultRetryState(key));
					}

				}
				""", """
				import dev.retrykit.RecoveryCallback;
				import dev.retrykit.RetryCallback;
				import dev.retrykit.RetryState;
				import dev.retrykit.RetryTemplate;
				import dev.retrykit.context.RetryContext;

				class Jobs {

					private final RetryTemplate template;

					Jobs(RetryTemplate template) {
						this.template = template;
					}

					String run(String key) {
						RetryCallback<String, RuntimeException> callback = (RetryContext context) -> "attempt " + context.getRetryCount();
						RecoveryCallback<String> recovery = (context) -> "recovered";
						template.execute(callback, recovery);
						return template.execute(callback, recovery, RetryState.of(key));
					}

				}
				"""));
	}

	@Test
	void aCustomRetryPolicyKeepsTheFileOnSpringRetryWithANote() {
		rewriteRun((spec) -> spec.dataTable(UnmappedElements.Row.class, (rows) -> assertThat(rows)
				.extracting(UnmappedElements.Row::reason).containsExactly(
						"RetryPolicy has no retrykit equivalent", "SimpleRetryPolicy has no retrykit equivalent",
						"new RetryTemplate() is configured through setters; build it with RetryTemplate.builder()",
						"RetryTemplate.setRetryPolicy has no retrykit equivalent")), java("""
				import org.springframework.retry.RetryPolicy;
				import org.springframework.retry.policy.SimpleRetryPolicy;
				import org.springframework.retry.support.RetryTemplate;

				class Jobs {

					RetryTemplate template() {
						RetryPolicy policy = new SimpleRetryPolicy(4);
						RetryTemplate template = new RetryTemplate();
						template.setRetryPolicy(policy);
						return template;
					}

				}
				""", """
				import org.springframework.retry.RetryPolicy;
				import org.springframework.retry.policy.SimpleRetryPolicy;
				import org.springframework.retry.support.RetryTemplate;

				// retrykit-migrate: Spring Retry's API kept in this file: RetryPolicy has no retrykit equivalent; SimpleRetryPolicy has no retrykit equivalent; new RetryTemplate() is configured through setters; build it with RetryTemplate.builder(); RetryTemplate.setRetryPolicy has no retrykit equivalent
				class Jobs {

					RetryTemplate template() {
						RetryPolicy policy = new SimpleRetryPolicy(4);
						RetryTemplate template = new RetryTemplate();
						template.setRetryPolicy(policy);
						return template;
					}

				}
				"""));
	}

}
