package dev.retrykit.migrate;

import org.junit.jupiter.api.Test;
import org.openrewrite.test.RecipeSpec;
import org.openrewrite.test.RewriteTest;

import static dev.retrykit.migrate.SpringRetryDependencyToRetrykitTests.pom;
import static org.openrewrite.java.Assertions.java;
import static org.openrewrite.xml.Assertions.xml;

class Resilience4jDependenciesToRetrykitTests implements RewriteTest {

	private static final String VERSION = DependenciesToRetrykitStarter.retrykitVersion();

	@Override
	public void defaults(RecipeSpec spec) {
		spec.recipe(new Resilience4jDependenciesToRetrykit())
			.parser(RetrykitStubs.parser().classpath("resilience4j-annotations", "resilience4j-ratelimiter"));
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
				"""), xml(pom("""
				    <dependency>
				      <groupId>io.github.resilience4j</groupId>
				      <artifactId>resilience4j-spring-boot3</artifactId>
				      <version>2.4.0</version>
				    </dependency>
				    <dependency>
				      <groupId>io.github.resilience4j</groupId>
				      <artifactId>resilience4j-circuitbreaker</artifactId>
				      <version>2.4.0</version>
				    </dependency>
				    <dependency>
				      <groupId>org.springframework.boot</groupId>
				      <artifactId>spring-boot-starter-aop</artifactId>
				    </dependency>
				"""), pom("""
				    <dependency>
				      <groupId>dev.retrykit</groupId>
				      <artifactId>retry-spring-boot-starter</artifactId>
				      <version>%s</version>
				    </dependency>
				""".formatted(VERSION)), (spec) -> spec.path("pom.xml")));
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
				"""), xml(pom("""
				    <dependency>
				      <groupId>io.github.resilience4j</groupId>
				      <artifactId>resilience4j-spring-boot3</artifactId>
				      <version>2.4.0</version>
				    </dependency>
				"""), pom("""
				    <dependency>
				      <groupId>io.github.resilience4j</groupId>
				      <artifactId>resilience4j-spring-boot3</artifactId>
				      <version>2.4.0</version>
				    </dependency>
				    <dependency>
				      <groupId>dev.retrykit</groupId>
				      <artifactId>retry-spring-boot-starter</artifactId>
				      <version>%s</version>
				    </dependency>
				""".formatted(VERSION)), (spec) -> spec.path("pom.xml")));
	}

}
