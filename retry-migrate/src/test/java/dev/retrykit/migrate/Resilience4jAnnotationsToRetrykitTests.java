package dev.retrykit.migrate;

import org.junit.jupiter.api.Test;
import org.openrewrite.test.RecipeSpec;
import org.openrewrite.test.RewriteTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.openrewrite.java.Assertions.java;

class Resilience4jAnnotationsToRetrykitTests implements RewriteTest {

	@Override
	public void defaults(RecipeSpec spec) {
		spec.recipe(new Resilience4jAnnotationsToRetrykit()).parser(RetrykitStubs.parser().classpath("resilience4j-annotations"));
	}

	@Test
	void retryWithAFallbackBecomesRetryableWithARecoverMethodTakingTheExceptionFirst() {
		rewriteRun(java("""
				import io.github.resilience4j.retry.annotation.Retry;

				class Inventory {

					@Retry(name = "inventory", fallbackMethod = "cached")
					String stock(String sku, int warehouse) {
						return sku;
					}

					String cached(String sku, int warehouse, Exception failure) {
						return "cached";
					}

				}
				""", """
				import dev.retrykit.annotation.Recover;
				import dev.retrykit.annotation.Retryable;

				class Inventory {

					@Retryable(value = "inventory", recover = "cached")
					String stock(String sku, int warehouse) {
						return sku;
					}

					@Recover
					String cached(Exception failure, String sku, int warehouse) {
						return "cached";
					}

				}
				"""));
	}

	@Test
	void aBreakerAloneCallsOnceAndABreakerWithARetryOfTheSameNameIsOneInstance() {
		rewriteRun(java("""
				import io.github.resilience4j.circuitbreaker.annotation.CircuitBreaker;
				import io.github.resilience4j.retry.annotation.Retry;

				class Payments {

					@CircuitBreaker(name = "payments")
					String pay(String order) {
						return order;
					}

					@Retry(name = "refunds", fallbackMethod = "later")
					@CircuitBreaker(name = "refunds", fallbackMethod = "later")
					String refund(String order) {
						return order;
					}

					String later(String order, RuntimeException failure) {
						return "later";
					}

				}
				""", """
				import dev.retrykit.annotation.Recover;
				import dev.retrykit.annotation.Retryable;

				class Payments {

					@Retryable(value = "payments", maxAttempts = 1, recover = Retryable.NO_RECOVERY)
					String pay(String order) {
						return order;
					}

					@Retryable(value = "refunds", recover = "later")
					String refund(String order) {
						return order;
					}

					@Recover
					String later(RuntimeException failure, String order) {
						return "later";
					}

				}
				"""));
	}

	/**
	 * {@code cached} fits {@code stock} as well as {@code price}: without {@code NO_RECOVERY}, retrykit (as Spring
	 * Retry) would recover {@code stock}'s exhausted failures with it, where Resilience4j let them through.
	 */
	@Test
	void aMethodWithoutAFallbackKeepsNoRecoveryBesideOneWithAFallback() {
		rewriteRun(java("""
				import java.io.IOException;

				import io.github.resilience4j.retry.annotation.Retry;

				class Catalog {

					@Retry(name = "prices", fallbackMethod = "cached")
					String price(String sku) throws IOException {
						return sku;
					}

					@Retry(name = "stock")
					String stock(String sku) throws IOException {
						return sku;
					}

					String cached(String sku, IOException failure) {
						return "cached";
					}

				}
				""", """
				import dev.retrykit.annotation.Recover;
				import dev.retrykit.annotation.Retryable;

				import java.io.IOException;

				class Catalog {

					@Retryable(value = "prices", recover = "cached")
					String price(String sku) throws IOException {
						return sku;
					}

					@Retryable(value = "stock", recover = Retryable.NO_RECOVERY)
					String stock(String sku) throws IOException {
						return sku;
					}

					@Recover
					String cached(IOException failure, String sku) {
						return "cached";
					}

				}
				"""));
	}

	@Test
	void aClassWithoutFallbacksNamesNoRecovery() {
		rewriteRun(java("""
				import io.github.resilience4j.retry.annotation.Retry;

				class Catalog {

					@Retry(name = "stock")
					String stock(String sku) {
						return sku;
					}

				}
				""", """
				import dev.retrykit.annotation.Retryable;

				class Catalog {

					@Retryable(value = "stock")
					String stock(String sku) {
						return sku;
					}

				}
				"""));
	}

	@Test
	void aFallbackThatDoesNotFitKeepsTheClassOnResilience4jWithANote() {
		rewriteRun((spec) -> spec.dataTable(UnmappedElements.Row.class, (rows) -> assertThat(rows)
				.extracting(UnmappedElements.Row::element).containsExactly("Inventory.stock")), java("""
				import io.github.resilience4j.retry.annotation.Retry;

				class Inventory {

					@Retry(name = "inventory", fallbackMethod = "cached")
					String stock(String sku) {
						return sku;
					}

					Object cached(String sku, Exception failure) {
						return "cached";
					}

				}
				""", """
				import io.github.resilience4j.retry.annotation.Retry;

				// retrykit-migrate: Resilience4j kept in this class: fallback method cached does not fit a retrykit recover method (the method's return type, its parameters and an optional Throwable)
				class Inventory {

					@Retry(name = "inventory", fallbackMethod = "cached")
					String stock(String sku) {
						return sku;
					}

					Object cached(String sku, Exception failure) {
						return "cached";
					}

				}
				"""));
	}

	@Test
	void differentNamesForTheRetryAndTheBreakerAreLeftWithANote() {
		rewriteRun(java("""
				import io.github.resilience4j.circuitbreaker.annotation.CircuitBreaker;
				import io.github.resilience4j.retry.annotation.Retry;

				class Payments {

					@Retry(name = "a")
					@CircuitBreaker(name = "b")
					String pay(String order) {
						return order;
					}

				}
				""", """
				import io.github.resilience4j.circuitbreaker.annotation.CircuitBreaker;
				import io.github.resilience4j.retry.annotation.Retry;

				// retrykit-migrate: Resilience4j kept in this class: @Retry(name = "a") and @CircuitBreaker(name = "b") differ; a retrykit instance has one name for its retry and its breaker
				class Payments {

					@Retry(name = "a")
					@CircuitBreaker(name = "b")
					String pay(String order) {
						return order;
					}

				}
				"""));
	}

	@Test
	void aRetryOnTheTypeNamesTheInstance() {
		rewriteRun(java("""
				import io.github.resilience4j.retry.annotation.Retry;

				@Retry(name = "catalog")
				class Catalog {

					String item(String id) {
						return id;
					}

				}
				""", """
				import dev.retrykit.annotation.Retryable;

				@Retryable(value = "catalog")
				class Catalog {

					String item(String id) {
						return id;
					}

				}
				"""));
	}


	@Test
	void aRetryConfigCustomizerIsKeptWithANote() {
		rewriteRun((spec) -> spec.parser(RetrykitStubs.parser().classpath("resilience4j-annotations", "resilience4j-framework-common",
				"resilience4j-retry", "resilience4j-core")), java("""
				import io.github.resilience4j.common.retry.configuration.RetryConfigCustomizer;

				class RetryTuning {

					RetryConfigCustomizer inventory() {
						return RetryConfigCustomizer.of("inventory", (builder) -> builder.maxAttempts(7));
					}

				}
				""", """
				import io.github.resilience4j.common.retry.configuration.RetryConfigCustomizer;

				// retrykit-migrate: Resilience4j's RetryConfig.Builder, RetryConfigCustomizer kept: no retrykit equivalent in code; configure the instance under retry.* (a RetryTemplateCustomizer bean for what properties cannot say)
				class RetryTuning {

					RetryConfigCustomizer inventory() {
						return RetryConfigCustomizer.of("inventory", (builder) -> builder.maxAttempts(7));
					}

				}
				"""));
	}

}
