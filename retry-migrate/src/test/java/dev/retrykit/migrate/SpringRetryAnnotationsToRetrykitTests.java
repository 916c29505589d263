package dev.retrykit.migrate;

import org.junit.jupiter.api.Test;
import org.openrewrite.test.RecipeSpec;
import org.openrewrite.test.RewriteTest;

import static org.openrewrite.java.Assertions.java;
import static org.openrewrite.java.Assertions.mavenProject;
import static org.openrewrite.java.Assertions.srcMainJava;
import static org.openrewrite.java.Assertions.srcMainResources;
import static org.assertj.core.api.Assertions.assertThat;
import static org.openrewrite.properties.Assertions.properties;
import static org.openrewrite.yaml.Assertions.yaml;

class SpringRetryAnnotationsToRetrykitTests implements RewriteTest {

	@Override
	public void defaults(RecipeSpec spec) {
		spec.recipe(new SpringRetryAnnotationsToRetrykit())
			.parser(RetrykitStubs.parser().classpath("spring-retry"));
	}

	@Test
	void retryableWithBackoffBecomesRetrykitsWithTheSameBehaviour() {
		rewriteRun(java("""
				import java.io.IOException;

				import org.springframework.retry.annotation.Backoff;
				import org.springframework.retry.annotation.Retryable;

				class Inventory {

					@Retryable(retryFor = IOException.class, maxAttempts = 4, backoff = @Backoff(delay = 200, multiplier = 2, maxDelay = 5000))
					String stock(String sku) throws IOException {
						return sku;
					}

				}
				""", """
				import dev.retrykit.annotation.Backoff;
				import dev.retrykit.annotation.Retryable;

				import java.io.IOException;

				class Inventory {

					@Retryable(maxAttempts = 4, backoff = @Backoff(delay = 200, maxDelay = 5000, multiplier = 2.0, type = "exponential"), retryFor = IOException.class)
					String stock(String sku) throws IOException {
						return sku;
					}

				}
				"""));
	}


	@Test
	void retryableWithoutBackoffKeepsSpringRetrysFixedSecondAndMergesTheExceptionLists() {
		rewriteRun(java("""
				import java.io.IOException;
				import java.util.concurrent.TimeoutException;

				import org.springframework.retry.annotation.Retryable;

				class Inventory {

					@Retryable(value = IOException.class, include = TimeoutException.class, exclude = IllegalStateException.class, noRetryFor = IllegalArgumentException.class, notRecoverable = UnsupportedOperationException.class, label = "inventory")
					String stock(String sku) throws Exception {
						return sku;
					}

				}
				""", """
				import dev.retrykit.annotation.Backoff;
				import dev.retrykit.annotation.Retryable;

				import java.io.IOException;
				import java.util.concurrent.TimeoutException;

				class Inventory {

					@Retryable(value = "inventory", backoff = @Backoff(delay = 1000, type = "fixed"), retryFor = {IOException.class, TimeoutException.class}, noRetryFor = {IllegalStateException.class, IllegalArgumentException.class}, notRecoverable = UnsupportedOperationException.class)
					String stock(String sku) throws Exception {
						return sku;
					}

				}
				"""));
	}

	@Test
	void statefulRetryWithRecoverListenersAndExceptionExpressionKeepsThem() {
		rewriteRun(java("""
				import org.springframework.retry.annotation.Backoff;
				import org.springframework.retry.annotation.Recover;
				import org.springframework.retry.annotation.Retryable;

				class Orders {

					@Retryable(stateful = true, recover = "giveUp", listeners = {"audit"}, exceptionExpression = "message.contains('busy')", backoff = @Backoff(0))
					void place(String id) {
					}

					@Recover
					void giveUp(RuntimeException failure, String id) {
					}

				}
				""", """
				import dev.retrykit.annotation.Backoff;
				import dev.retrykit.annotation.Recover;
				import dev.retrykit.annotation.Retryable;

				class Orders {

					@Retryable(backoff = @Backoff(delay = 0, type = "fixed"), recover = "giveUp", stateful = true, exceptionExpression = "message.contains('busy')", listeners = {"audit"})
					void place(String id) {
					}

					@Recover
					void giveUp(RuntimeException failure, String id) {
					}

				}
				"""));
	}

	@Test
	void randomBackoffsMapToTheSameFormulas() {
		rewriteRun(java("""
				import org.springframework.retry.annotation.Backoff;
				import org.springframework.retry.annotation.Retryable;

				class Prices {

					@Retryable(backoff = @Backoff(delay = 100, maxDelay = 400))
					int uniform() {
						return 1;
					}

					@Retryable(backoff = @Backoff(value = 50, multiplier = 1.5, random = true))
					int exponentialRandom() {
						return 1;
					}

					@Retryable(backoff = @Backoff(delay = 15000))
					int slowFixed() {
						return 1;
					}

				}
				""", """
				import dev.retrykit.annotation.Backoff;
				import dev.retrykit.annotation.Retryable;

				class Prices {

					@Retryable(backoff = @Backoff(delay = 100, maxDelay = 400, type = "uniform-random"))
					int uniform() {
						return 1;
					}

					@Retryable(backoff = @Backoff(delay = 50, maxDelay = 30000, multiplier = 1.5, type = "exponential-random"))
					int exponentialRandom() {
						return 1;
					}

					@Retryable(backoff = @Backoff(delay = 15000, maxDelay = 15000, type = "fixed"))
					int slowFixed() {
						return 1;
					}

				}
				"""));
	}

	@Test
	void enableRetryIsRemovedWhenNothingOfSpringRetryStays() {
		rewriteRun(java("""
				import org.springframework.retry.annotation.EnableRetry;

				@EnableRetry
				class Application {
				}
				""", """
				class Application {
				}
				"""));
	}

	@Test
	void circuitBreakerBecomesOneAttemptPerCallThroughAnInstanceWithABreakerInApplicationYml() {
		rewriteRun(mavenProject("shop",
				srcMainJava(java("""
						package shop;

						import org.springframework.retry.annotation.CircuitBreaker;
						import org.springframework.retry.annotation.Recover;

						class Payments {

							@CircuitBreaker(maxAttempts = 2, openTimeout = 1000, resetTimeout = 3000)
							String pay(String order) {
								return order;
							}

							@Recover
							String later(String order) {
								return "later";
							}

						}
						""", """
						package shop;

						import dev.retrykit.annotation.Recover;
						import dev.retrykit.annotation.Retryable;

						class Payments {

							@Retryable(value = "Payments.pay", maxAttempts = 1)
							String pay(String order) {
								return order;
							}

							@Recover
							String later(String order) {
								return "later";
							}

						}
						""")),
				srcMainResources(yaml("""
						spring:
						  application:
						    name: shop
						""", """
						spring:
						  application:
						    name: shop
						retry:
						  instances:
						    "[Payments.pay]":
						      max-attempts: 1
						      circuit-breaker:
						        trip: "totalFailures >= 2"
						        interval: 1000ms
						        timeout: 3000ms
						        max-requests: 1
						""", (spec) -> spec.path("application.yml")))));
	}

	@Test
	void circuitBreakerWithALabelAndNoConfigFileGetsANewApplicationYml() {
		rewriteRun(mavenProject("shop",
				srcMainJava(java("""
						import org.springframework.retry.annotation.CircuitBreaker;

						class Payments {

							@CircuitBreaker(label = "payments", include = IllegalStateException.class)
							String pay(String order) {
								return order;
							}

						}
						""", """
						import dev.retrykit.annotation.Retryable;

						class Payments {

							@Retryable(value = "payments", maxAttempts = 1, retryFor = IllegalStateException.class)
							String pay(String order) {
								return order;
							}

						}
						""")),
				srcMainResources(yaml(null, """
						retry:
						  instances:
						    payments:
						      max-attempts: 1
						      circuit-breaker:
						        trip: "totalFailures >= 3"
						        interval: 5000ms
						        timeout: 20000ms
						        max-requests: 1
						""", (spec) -> spec.path("application.yml")))));
	}

	@Test
	void circuitBreakerSettingsGoToApplicationPropertiesWhenThereIsNoYaml() {
		rewriteRun(mavenProject("shop",
				srcMainJava(java("""
						import org.springframework.retry.annotation.Retryable;

						class Payments {

							@Retryable(maxAttemptsExpression = "${payments.attempts:3}")
							String pay(String order) {
								return order;
							}

						}
						""", """
						import dev.retrykit.annotation.Backoff;
						import dev.retrykit.annotation.Retryable;

						class Payments {

							@Retryable(value = "Payments.pay", backoff = @Backoff(delay = 1000, type = "fixed"))
							String pay(String order) {
								return order;
							}

						}
						""")),
				srcMainResources(properties("""
						spring.application.name=shop
						""", """
						spring.application.name=shop
						retry.instances[Payments.pay].max-attempts=${payments.attempts:3}
						""", (spec) -> spec.path("application.properties")))));
	}

	@Test
	void aClassWithAnInterceptorKeepsSpringRetryWithANoteAndARow() {
		rewriteRun((spec) -> spec.dataTable(UnmappedElements.Row.class, (rows) -> assertThat(rows)
				.extracting(UnmappedElements.Row::element).containsExactly("@Retryable on Payments.pay")), java("""
						import org.springframework.retry.annotation.EnableRetry;
						import org.springframework.retry.annotation.Recover;
						import org.springframework.retry.annotation.Retryable;

						@EnableRetry
						class Payments {

							@Retryable(interceptor = "paymentsInterceptor")
							String pay(String order) {
								return order;
							}

							@Recover
							String later(String order) {
								return "later";
							}

						}
						""", """
						import org.springframework.retry.annotation.EnableRetry;
						import org.springframework.retry.annotation.Recover;
						import org.springframework.retry.annotation.Retryable;

						// retrykit-migrate: Spring Retry kept in this class: @Retryable(interceptor) names a MethodInterceptor bean that builds its own retry; retrykit has none
						@EnableRetry
						class Payments {

							@Retryable(interceptor = "paymentsInterceptor")
							String pay(String order) {
								return order;
							}

							@Recover
							String later(String order) {
								return "later";
							}

						}
						"""));
	}

	@Test
	void backoffExpressionsAndSpelAttemptsAreLeftWithANote() {
		rewriteRun(java("""
				import org.springframework.retry.annotation.Backoff;
				import org.springframework.retry.annotation.Retryable;

				class Payments {

					@Retryable(backoff = @Backoff(delayExpression = "#{@delays.first()}"))
					String pay(String order) {
						return order;
					}

				}
				""", """
				import org.springframework.retry.annotation.Backoff;
				import org.springframework.retry.annotation.Retryable;

				// retrykit-migrate: Spring Retry kept in this class: @Backoff(delayExpression) is evaluated at run time; write the value itself
				class Payments {

					@Retryable(backoff = @Backoff(delayExpression = "#{@delays.first()}"))
					String pay(String order) {
						return order;
					}

				}
				"""));
	}

	@Test
	void migratedCodeIsLeftAsItIs() {
		rewriteRun(java("""
				import dev.retrykit.annotation.Backoff;
				import dev.retrykit.annotation.Retryable;

				class Inventory {

					@Retryable(backoff = @Backoff(delay = 1000, type = "fixed"))
					String stock(String sku) {
						return sku;
					}

				}
				"""));
	}

}
