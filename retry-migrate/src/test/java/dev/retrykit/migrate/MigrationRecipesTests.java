package dev.retrykit.migrate;

import org.junit.jupiter.api.Test;
import org.openrewrite.test.RewriteTest;

import static dev.retrykit.migrate.SpringRetryDependencyToRetrykitTests.SPRING_RETRY;
import static dev.retrykit.migrate.SpringRetryDependencyToRetrykitTests.STARTER;
import static dev.retrykit.migrate.SpringRetryDependencyToRetrykitTests.pom;
import static org.openrewrite.java.Assertions.java;
import static org.openrewrite.java.Assertions.mavenProject;
import static org.openrewrite.java.Assertions.srcMainJava;
import static org.openrewrite.java.Assertions.srcMainResources;
import static org.openrewrite.maven.Assertions.pomXml;
import static org.openrewrite.yaml.Assertions.yaml;

/**
 * The two declarative recipes of {@code META-INF/rewrite/retrykit.yml}, as the rewrite Maven plugin runs them, on a
 * whole module: each changes it once, and a second run over the result changes nothing.
 */
class MigrationRecipesTests implements RewriteTest {

	private static final String SPRING_RETRY_AFTER = """
			package shop;

			import dev.retrykit.annotation.Backoff;
			import dev.retrykit.annotation.Recover;
			import dev.retrykit.annotation.Retryable;

			import java.io.IOException;

			class Inventory {

				@Retryable(maxAttempts = 4, backoff = @Backoff(delay = 1000, type = "fixed"), retryFor = IOException.class)
				String stock(String sku) throws IOException {
					return sku;
				}

				@Recover
				String none(IOException failure, String sku) {
					return "none";
				}

			}
			""";

	private static final String RESILIENCE4J_AFTER = """
			package shop;

			import dev.retrykit.annotation.Recover;
			import dev.retrykit.annotation.Retryable;

			class Payments {

				@Retryable(value = "payments", recover = "later")
				String pay(String order) {
					return order;
				}

				@Recover
				String later(Exception failure, String order) {
					return "later";
				}

			}
			""";

	@Test
	void springRetryToRetrykitMovesAModule() {
		rewriteRun((spec) -> spec.recipeFromResources("dev.retrykit.migrate.SpringRetryToRetrykit")
			.parser(RetrykitStubs.parser().classpath("spring-retry")).executionContext(StarterRepository.context()), mavenProject("shop",
				srcMainJava(java("""
						package shop;

						import org.springframework.retry.annotation.EnableRetry;

						@EnableRetry
						class ShopApplication {
						}
						""", """
						package shop;

						class ShopApplication {
						}
						"""), java("""
						package shop;

						import java.io.IOException;

						import org.springframework.retry.annotation.Recover;
						import org.springframework.retry.annotation.Retryable;

						class Inventory {

							@Retryable(retryFor = IOException.class, maxAttempts = 4)
							String stock(String sku) throws IOException {
								return sku;
							}

							@Recover
							String none(IOException failure, String sku) {
								return "none";
							}

						}
						""", SPRING_RETRY_AFTER)),
				pomXml(pom(SPRING_RETRY), pom(STARTER))));
	}

	@Test
	void resilience4jToRetrykitMovesAModule() {
		rewriteRun((spec) -> spec.recipeFromResources("dev.retrykit.migrate.Resilience4jToRetrykit")
			.parser(RetrykitStubs.parser().classpath("resilience4j-annotations")).executionContext(StarterRepository.context()), mavenProject("shop",
				srcMainJava(java("""
						package shop;

						import io.github.resilience4j.circuitbreaker.annotation.CircuitBreaker;
						import io.github.resilience4j.retry.annotation.Retry;

						class Payments {

							@Retry(name = "payments", fallbackMethod = "later")
							@CircuitBreaker(name = "payments", fallbackMethod = "later")
							String pay(String order) {
								return order;
							}

							String later(String order, Exception failure) {
								return "later";
							}

						}
						""", RESILIENCE4J_AFTER)),
				srcMainResources(yaml("""
						resilience4j:
						  retry:
						    instances:
						      payments:
						        maxAttempts: 2
						  circuitbreaker:
						    instances:
						      payments:
						        slidingWindowSize: 10
						""", """
						retry:
						  instances:
						    payments:
						      max-attempts: 2
						      circuit-breaker:
						        enabled: true
						        trip: "requests >= 10 && failureRate >= 50"
						        timeout: 60s
						        max-requests: 10
						  defaults:
						    backoff:
						      delay: 500ms
						      type: fixed
						      multiplier: 1.5
						      max-delay: 24h
						""", (spec) -> spec.path("application.yml"))),
				pomXml(pom("""
						    <dependency>
						      <groupId>io.github.resilience4j</groupId>
						      <artifactId>resilience4j-spring6</artifactId>
						      <version>${resilience4j.version}</version>
						    </dependency>
						"""), pom(STARTER))));
	}

	@Test
	void runningTheRecipesAgainOnTheirResultChangesNothing() {
		rewriteRun((spec) -> spec.recipeFromResources("dev.retrykit.migrate.SpringRetryToRetrykit",
				"dev.retrykit.migrate.Resilience4jToRetrykit").parser(RetrykitStubs.parser())
			.executionContext(StarterRepository.context()),
				mavenProject("shop", srcMainJava(java(SPRING_RETRY_AFTER), java(RESILIENCE4J_AFTER)),
						srcMainResources(yaml("""
								retry:
								  instances:
								    payments:
								      max-attempts: 2
								""", (spec) -> spec.path("application.yml"))),
						pomXml(pom(STARTER))));
	}

}
