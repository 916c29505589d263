package dev.retrykit.migrate;

import org.junit.jupiter.api.Test;
import org.openrewrite.test.RecipeSpec;
import org.openrewrite.test.RewriteTest;

import static dev.retrykit.migrate.SpringRetryDependencyToRetrykitTests.STARTER;
import static dev.retrykit.migrate.SpringRetryDependencyToRetrykitTests.pom;
import static org.openrewrite.java.Assertions.java;
import static org.openrewrite.maven.Assertions.pomXml;

class Resilience4jDependenciesToRetrykitTests implements RewriteTest {

	@Override
	public void defaults(RecipeSpec spec) {
		spec.recipe(new Resilience4jDependenciesToRetrykit())
			.parser(RetrykitStubs.parser().classpath("resilience4j-annotations", "resilience4j-ratelimiter"))
			.executionContext(StarterRepository.context());
	}

	@Test
	void resilience4jArtifactsBecomeTheStarter() {
		rewriteRun(java("""
				import io.github.resilience4j.retry.annotation.Retry;

				class Inventory {
					@Retry(name = "inventory")
					String stock() {
						return "";
					}
				}
				"""), pomXml(pom("""
				    <dependency>
				      <groupId>io.github.resilience4j</groupId>
				      <artifactId>resilience4j-spring6</artifactId>
				      <version>${resilience4j.version}</version>
				    </dependency>
				    <dependency>
				      <groupId>io.github.resilience4j</groupId>
				      <artifactId>resilience4j-circuitbreaker</artifactId>
				      <version>${resilience4j.version}</version>
				    </dependency>
				    <dependency>
				      <groupId>org.springframework.boot</groupId>
				      <artifactId>spring-boot-starter-aspectj</artifactId>
				    </dependency>
				"""), pom(STARTER)));
	}

	@Test
	void resilience4jStaysWhileARateLimiterUsesIt() {
		rewriteRun(java("""
				import io.github.resilience4j.ratelimiter.annotation.RateLimiter;

				class Inventory {
					@RateLimiter(name = "inventory")
					String stock() {
						return "";
					}
				}
				"""), pomXml(pom("""
				    <dependency>
				      <groupId>io.github.resilience4j</groupId>
				      <artifactId>resilience4j-spring6</artifactId>
				      <version>${resilience4j.version}</version>
				    </dependency>
				"""), pom(STARTER + """
				    <dependency>
				      <groupId>io.github.resilience4j</groupId>
				      <artifactId>resilience4j-spring6</artifactId>
				      <version>${resilience4j.version}</version>
				    </dependency>
				""")));
	}

}
